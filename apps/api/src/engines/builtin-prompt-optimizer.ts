import {
  type EngineRequest,
  PROMPT_MAX_LENGTH,
  type TEMPLATE_PROMPTS,
  type TIMES,
  type WEATHERS,
} from "@imagehub/domain";
import { createRandomFromText } from "../common/seeded-random.js";
import type { PromptOptimizer } from "./prompt-optimizer.js";

/** The shape of the picture, which decides the composition and the lens written about. */
type FrameShape = "panoramic" | "landscape" | "square" | "portrait" | "tall";

const SUBJECT_DETAILS = [
  "the subject rendered in fine, lifelike detail",
  "rich textures and true-to-life colours",
  "crisp detail on the main subject",
  "natural materials with visible texture",
  "a clear focal point with carefully observed details",
] as const;

const STYLE_BY_TEMPLATE: Record<(typeof TEMPLATE_PROMPTS)[number], readonly string[]> = {
  realisticQuality: ["sharp professional photograph", "high-end photographic finish"],
  realisticManuel: [
    "candid handheld smartphone snapshot",
    "casual phone-camera look with natural imperfections",
  ],
};

const LIGHT_BY_TIME: Record<(typeof TIMES)[number], readonly string[]> = {
  sunrise: ["soft pink and gold light of sunrise", "first warm light of the rising sun, long shadows"],
  morning: ["fresh, clear morning light", "soft directional morning sun"],
  afternoon: ["bright afternoon daylight", "high afternoon sun with crisp shadows"],
  sunset: ["warm orange light of the setting sun", "glowing sunset sky with long soft shadows"],
  evening: ["fading blue-hour evening light", "soft dusky evening light"],
  "golden hour": ["warm low golden-hour light", "honeyed golden-hour glow with long shadows"],
  night: ["moody night lighting with deep shadows", "cool moonlight and scattered artificial lights"],
  midnight: [
    "deep midnight darkness lit by faint moonlight",
    "dark midnight scene with pools of artificial light",
  ],
};

const LIGHT_BY_WEATHER: Record<(typeof WEATHERS)[number], readonly string[]> = {
  sunny: ["clear sunny sky and vivid colours", "bright sunshine with sharp, defined shadows"],
  cloudy: ["soft diffused light under an overcast sky", "even light from a cloudy sky"],
  foggy: ["hazy, muted light through drifting fog", "soft fog that fades the background"],
  rainy: ["wet, reflective surfaces and rain-softened light", "falling rain and glistening reflections"],
  thunderstorm: [
    "dramatic storm clouds and flashes of lightning",
    "dark thunderstorm sky with brooding light",
  ],
  snowy: ["cold, bright light bouncing off fresh snow", "falling snowflakes and a muted winter palette"],
};

/** When neither the time of day nor the weather is given. */
const DEFAULT_LIGHT = ["soft natural daylight", "balanced natural light", "gentle diffused light"] as const;

const COMPOSITION_BY_SHAPE: Record<FrameShape, readonly string[]> = {
  panoramic: ["wide panoramic composition", "sweeping panoramic view with a strong horizon"],
  landscape: [
    "landscape composition with balanced framing",
    "horizontal framing with the subject on a third",
  ],
  square: ["centred square composition", "balanced square framing"],
  portrait: [
    "portrait composition with vertical framing",
    "vertical portrait framing, the subject filling the frame",
  ],
  tall: ["tall vertical portrait composition", "full-height portrait framing"],
};

const LENS_BY_SHAPE: Record<FrameShape, readonly string[]> = {
  panoramic: ["a 24mm wide-angle lens, deep focus", "a wide-angle lens with everything in focus"],
  landscape: ["a 35mm lens", "a 35mm lens, natural perspective"],
  square: ["a 50mm lens", "a 50mm lens, natural perspective"],
  portrait: [
    "an 85mm portrait lens, shallow depth of field",
    "an 85mm lens with a softly blurred background",
  ],
  tall: ["a 50mm lens, shallow depth of field", "a 35mm lens, subject sharp against a soft background"],
};

/** 16:9 and wider is panoramic, 9:16 and taller is tall. */
function frameShape(aspectRatio: string): FrameShape {
  const [width = 1, height = 1] = aspectRatio.split(":").map(Number);
  const ratio = width / height;
  if (ratio >= 16 / 9) return "panoramic";
  if (ratio > 1) return "landscape";
  if (ratio === 1) return "square";
  return ratio > 9 / 16 ? "portrait" : "tall";
}

/**
 * The optimizer that needs no outside service: keeps the description word for word and adds subject
 * detail, light (from the time of day and weather), composition and lens (from the aspect ratio and camera),
 * each phrase picked from a table by a generator seeded with the description, so the same input always
 * gives the same text. Phrases are added only while the result stays within PROMPT_MAX_LENGTH.
 */
export class BuiltinPromptOptimizer implements PromptOptimizer {
  async optimize({ description, request }: { description: string; request: EngineRequest }): Promise<string> {
    const random = createRandomFromText(description);
    const pick = (phrases: readonly string[]): string =>
      phrases[Math.floor(random() * phrases.length)] ?? phrases[0] ?? "";
    const shape = frameShape(request.aspectRatio);
    const lens = pick(LENS_BY_SHAPE[shape]);
    // `request.description` is left alone on purpose: it may already start with additionalPrompt.
    const phrases = [
      pick(SUBJECT_DETAILS),
      request.template && pick(STYLE_BY_TEMPLATE[request.template]),
      request.timeOfDay && pick(LIGHT_BY_TIME[request.timeOfDay]),
      request.weather && pick(LIGHT_BY_WEATHER[request.weather]),
      !request.timeOfDay && !request.weather && pick(DEFAULT_LIGHT),
      pick(COMPOSITION_BY_SHAPE[shape]),
      request.camera ? `shot on ${request.camera} with ${lens}` : `shot with ${lens}`,
    ].filter((phrase): phrase is string => typeof phrase === "string" && phrase !== "");
    let text = clip(description.trim().replace(/[\s.,;:]+$/, ""), PROMPT_MAX_LENGTH);
    for (const phrase of phrases) {
      if (text.length + 2 + phrase.length > PROMPT_MAX_LENGTH) break;
      text = text === "" ? phrase : `${text}, ${phrase}`;
    }
    return text;
  }
}

/** At most `max` characters, cut at a space when there is one. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return (space > 0 ? cut.slice(0, space) : cut).trimEnd();
}
