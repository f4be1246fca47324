// What bench:generations asks for: varied simple-mode generations, and the engine request each compiles to.
import { compileGeneration } from "@imagehub/domain";

const SUBJECTS = [
  "a red fox in the snow",
  "a lighthouse on a cliff",
  "a mountain lake with pines",
  "an old stone bridge over a river",
  "a field of sunflowers",
];
const FORMATS = ["1:1", "16:9", "3:2", "4:5"];
const WEATHERS = ["sunny", "cloudy", "foggy", "rainy", "thunderstorm", "snowy"];
const TIMES = ["sunrise", "morning", "afternoon", "sunset", "night"];

/** @param {readonly string[]} values @param {number} index */
function pick(values, index) {
  return /** @type {string} */ (values[index % values.length]);
}

/** @param {number} index */
export function createBody(index) {
  return {
    name: `bench ${index}`,
    prompt: `${pick(SUBJECTS, index)}, study ${index}`,
    mode: /** @type {const} */ ("simple"),
    params: [
      { name: "format", value: pick(FORMATS, index) },
      { name: "weather", value: pick(WEATHERS, index) },
      { name: "time", value: pick(TIMES, index) },
    ],
  };
}

/**
 * The request the worker hands the engine for createBody(index).
 * @param {number} index
 */
export function engineRequest(index) {
  const { mode, prompt, params } = createBody(index);
  return compileGeneration({ mode, prompt, params });
}

export const BENCH_PROMPT = engineRequest(0);
