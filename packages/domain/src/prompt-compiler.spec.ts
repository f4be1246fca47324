import { describe, expect, it } from "vitest";
import { getCommandFlags } from "./command-flags.js";
import type { EngineRequest } from "./engine-request.js";
import type { GenerationParam } from "./generation-params.js";
import {
  type CompileGenerationInput,
  compileGeneration,
  findPromptProblems,
  PromptError,
  parseCommand,
  renderCommand,
  renderDescription,
} from "./prompt-compiler.js";

function advanced(prompt: string, extra: Partial<CompileGenerationInput> = {}): EngineRequest {
  return compileGeneration({ mode: "advanced", prompt, ...extra });
}

function simple(prompt: string, params: GenerationParam[] = [], extra: Partial<CompileGenerationInput> = {}) {
  return compileGeneration({ mode: "simple", prompt, params, ...extra });
}

function problemsOf(prompt: string): string[] {
  return findPromptProblems(prompt, "advanced");
}

/** The fields a flag can set, to compare two requests on what the command carries. */
function commandFields(request: EngineRequest) {
  const { aspectRatio, chaos, stylize, negative, seed } = request;
  return { aspectRatio, chaos, stylize, negative, seed };
}

describe("parseCommand (advanced mode)", () => {
  it.each<[string, Partial<EngineRequest>]>([
    ["--ar 16:9", { aspectRatio: "16:9" }],
    ["--chaos 40", { chaos: 40 }],
    ["--stylize 750", { stylize: 750 }],
    ["--no text, logos", { negative: ["text", "logos"] }],
    ["--seed 4294967295", { seed: 4294967295 }],
    ["--weird 3000", { advanced: { weird: 3000 } }],
    ["--q 2", { advanced: { quality: 2 } }],
    ["--exp 25", { advanced: { experimental: 25 } }],
    ["--iw 1.5", { advanced: { imageWeight: 1.5 } }],
    [
      "--sref https://example.com/style.png",
      { advanced: { styleReference: "https://example.com/style.png" } },
    ],
    ["--sw 300", { advanced: { styleWeight: 300 } }],
    ["--v 6.1", { advanced: { version: "6.1" } }],
    ["--niji 6", { advanced: { niji: "6" } }],
    ["--niji", { advanced: { niji: true } }],
    ["--tile", { advanced: { tile: true } }],
    ["--raw", { advanced: { raw: true } }],
    ["--style raw", { advanced: { raw: true } }],
  ])("reads `%s`", (flags, expected) => {
    expect(advanced(`a red fox in the snow ${flags}`)).toMatchObject({
      description: "a red fox in the snow",
      ...expected,
    });
  });

  it.each<[string, Partial<EngineRequest>]>([
    ["--aspect 3:2", { aspectRatio: "3:2" }],
    ["--c 10", { chaos: 10 }],
    ["--s 50", { stylize: 50 }],
    ["--w 12", { advanced: { weird: 12 } }],
    ["--quality 4", { advanced: { quality: 4 } }],
    ["--version 7", { advanced: { version: "7" } }],
  ])("reads the alias `%s`", (flags, expected) => {
    expect(advanced(`a fox ${flags}`)).toMatchObject(expected);
  });

  it("stores the aspect ratio in lowest terms", () => {
    expect(advanced("a fox --ar 32:18").aspectRatio).toBe("16:9");
  });

  it("accepts the em-dash that phones put for --", () => {
    expect(advanced("a fox —ar 9:16 —chaos 5 —no rain")).toMatchObject({
      description: "a fox",
      aspectRatio: "9:16",
      chaos: 5,
      negative: ["rain"],
    });
  });

  it("reads flag names whatever their case", () => {
    expect(advanced("a fox --AR 2:3").aspectRatio).toBe("2:3");
  });

  it("runs the --no list until the next flag, trimming and dropping empty items", () => {
    expect(advanced("a fox --no  text , ,watermark,  --ar 1:2").negative).toEqual(["text", "watermark"]);
  });

  it("keeps dashes that are not flags in the description", () => {
    expect(advanced("a well--known fox — asleep, cat—dog --ar 4:3").description).toBe(
      "a well--known fox — asleep, cat—dog",
    );
  });

  it("sets nothing but the defaults without flags", () => {
    expect(advanced("a red fox in the snow")).toEqual({
      description: "a red fox in the snow",
      negative: [],
      aspectRatio: "1:1",
      chaos: 0,
      stylize: 100,
      seed: undefined,
      qualityHints: [],
      template: undefined,
      timeOfDay: undefined,
      weather: undefined,
      camera: undefined,
      angle: undefined,
      photographer: undefined,
      imagePrompt: undefined,
      advanced: {},
    } satisfies EngineRequest);
  });

  it.each([
    ["--ar 16-9", "--ar: must be W:H with two positive whole numbers, e.g. 16:9"],
    ["--ar 0:1", "--ar: must be W:H with two positive whole numbers, e.g. 16:9"],
    ["--ar 1.5:1", "--ar: must be W:H with two positive whole numbers, e.g. 16:9"],
    ["--chaos 101", "--chaos: must be a whole number from 0 to 100"],
    ["--chaos -1", "--chaos: must be a whole number from 0 to 100"],
    ["--chaos 2.5", "--chaos: must be a whole number from 0 to 100"],
    ["--stylize 1001", "--stylize: must be a whole number from 0 to 1000"],
    ["--no , ,", "--no: must list one or more things separated by commas"],
    ["--seed 4294967296", "--seed: must be a whole number from 0 to 4294967295"],
    ["--weird 3001", "--weird: must be a whole number from 0 to 3000"],
    ["--q 3", "--q: must be 1, 2 or 4"],
    ["--q 0.5", "--q: must be 1, 2 or 4"],
    ["--exp 101", "--exp: must be a whole number from 0 to 100"],
    ["--iw 3.5", "--iw: must be a number from 0 to 3"],
    ["--iw much", "--iw: must be a number from 0 to 3"],
    ["--sref ftp://example.com/style.png", "--sref: must be an http or https URL"],
    ["--sref not a url", "--sref: must be an http or https URL"],
    ["--sw 1001", "--sw: must be a whole number from 0 to 1000"],
    ["--v six", "--v: must be a version number such as 6, 6.1 or 7"],
    ["--niji six", "--niji: takes no value or a version number such as 6"],
    ["--tile please", "--tile: takes no value"],
    ["--raw yes", "--raw: takes no value"],
    ["--style cute", "--style: only raw is accepted"],
  ])("refuses `%s`, naming the flag and the rule", (flags, message) => {
    expect(problemsOf(`a fox ${flags}`)).toEqual([message]);
  });

  it.each([
    ["--ar", "--ar: missing value; must be W:H with two positive whole numbers, e.g. 16:9"],
    ["--chaos --ar 1:1", "--chaos: missing value; must be a whole number from 0 to 100"],
    ["--style", "--style: missing value; only raw is accepted"],
  ])("refuses `%s` without its value", (flags, message) => {
    expect(problemsOf(`a fox ${flags}`)).toEqual([message]);
  });

  it("refuses an unknown flag, listing the known ones", () => {
    expect(problemsOf("a fox --zoom 2")).toEqual([
      "--zoom: unknown flag (known: --ar, --chaos, --stylize, --no, --seed, --weird, --q, --exp, --iw, --sref, --sw, --v, --niji, --tile, --style, --raw)",
    ]);
  });

  it("refuses a value glued to the flag's name as an unknown flag", () => {
    expect(problemsOf("a fox --ar16:9")[0]).toMatch(/^--ar16:9: unknown flag/);
  });

  it("refuses a flag given twice", () => {
    expect(problemsOf("a fox --chaos 1 --chaos 2")).toEqual([
      "--chaos: given twice; a flag may be given once",
    ]);
  });

  it("refuses a flag given again through an alias", () => {
    expect(problemsOf("a fox --chaos 1 --c 2")).toEqual([
      "--c: given twice (--chaos already sets it); a flag may be given once",
    ]);
  });

  it("refuses --raw with --style raw, as they set the same thing", () => {
    expect(problemsOf("a fox --style raw --raw")).toEqual([
      "--raw: given twice (--style already sets it); a flag may be given once",
    ]);
  });

  it("refuses a command with nothing before its flags", () => {
    expect(problemsOf("  --ar 16:9 --chaos 10")).toEqual(["the description before the flags is empty"]);
  });

  it("reports every problem of the command", () => {
    expect(problemsOf("a fox --chaos 500 --zoom --s 2000")).toHaveLength(3);
  });

  it("gives the description and the settings", () => {
    expect(parseCommand("a fox --ar 2:4 --tile")).toEqual({
      ok: true,
      command: { description: "a fox", settings: { aspectRatio: "1:2", tile: true } },
    });
  });

  it("writes each flag name only once in the table", () => {
    const names = getCommandFlags().flatMap((row) => row.names);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("findPromptProblems (simple mode)", () => {
  it.each(["--ar", "--chaos", "--no", "--stylize", "--s", "--seed", "--v", "--zoom", "—ar"])(
    "refuses %s, naming it",
    (written) => {
      expect(findPromptProblems(`a red fox ${written} 3 in the snow`, "simple")).toEqual([
        `flags such as ${written} are not allowed in simple mode; use params`,
      ]);
    },
  );

  it("names each flag once", () => {
    expect(findPromptProblems("a fox --ar 1:1 --chaos 3 --ar 2:3", "simple")).toEqual([
      "flags such as --ar are not allowed in simple mode; use params",
      "flags such as --chaos are not allowed in simple mode; use params",
    ]);
  });

  it("accepts plain text with dashes and hyphens", () => {
    expect(
      findPromptProblems("a well-known fox — asleep — in a snow-covered, sun--lit wood", "simple"),
    ).toEqual([]);
  });
});

describe("findPromptProblems without a mode", () => {
  it("reports what is wrong in both modes", () => {
    expect(findPromptProblems("a fox --chaos 500", undefined)).toEqual([
      "--chaos: must be a whole number from 0 to 100",
    ]);
  });

  it("accepts a prompt that one of the modes accepts", () => {
    expect(findPromptProblems("a fox --chaos 50", undefined)).toEqual([]);
    expect(findPromptProblems("a fox", undefined)).toEqual([]);
  });
});

describe("compileGeneration", () => {
  it("gives a simple-mode prompt the spec's default template and the command defaults", () => {
    expect(simple("  a red fox in the snow ")).toEqual({
      description: "a red fox in the snow",
      negative: [],
      aspectRatio: "1:1",
      chaos: 0,
      stylize: 100,
      seed: undefined,
      qualityHints: ["high quality realistic photo"],
      template: "realisticQuality",
      timeOfDay: undefined,
      weather: undefined,
      camera: undefined,
      angle: undefined,
      photographer: undefined,
      imagePrompt: undefined,
      advanced: {},
    } satisfies EngineRequest);
  });

  it.each<[GenerationParam, Partial<EngineRequest>]>([
    [
      { name: "templatePrompt", value: "realisticQuality" },
      { template: "realisticQuality", qualityHints: ["high quality realistic photo"] },
    ],
    [
      { name: "templatePrompt", value: "realisticManuel" },
      { template: "realisticManuel", qualityHints: ["realistic smartphone photo"] },
    ],
    [{ name: "format", value: "16:9" }, { aspectRatio: "16:9" }],
    [{ name: "weather", value: "foggy" }, { weather: "foggy" }],
    [{ name: "Time", value: "golden hour" }, { timeOfDay: "golden hour" }],
    [{ name: "time", value: "night" }, { timeOfDay: "night" }],
    [{ name: "camera", value: " Leica M6 " }, { camera: "Leica M6" }],
    [{ name: "chaos", value: "20" }, { chaos: 20 }],
    [{ name: "stylize", value: "800" }, { stylize: 800 }],
    [{ name: "interdiction", value: " text, , logos ,people" }, { negative: ["text", "logos", "people"] }],
    [{ name: "angle", value: "low angle" }, { angle: "low angle" }],
    [{ name: "photographe", value: "Ansel Adams" }, { photographer: "Ansel Adams" }],
    [{ name: "version", value: "6.1" }, { advanced: { version: "6.1" } }],
    [
      { name: "fromImageUrl", value: "https://example.com/fox.png" },
      { imagePrompt: "https://example.com/fox.png" },
    ],
  ])("maps the simple param %j", (param, expected) => {
    expect(simple("a fox", [param])).toMatchObject(expected);
  });

  it("puts additionalPrompt before the description, with a full stop between them", () => {
    expect(simple("a red fox", [], { additionalPrompt: "Brand style: warm tones" }).description).toBe(
      "Brand style: warm tones. a red fox",
    );
  });

  it("adds no full stop after an additionalPrompt that ends with punctuation", () => {
    expect(simple("a red fox", [], { additionalPrompt: "In watercolour," }).description).toBe(
      "In watercolour, a red fox",
    );
  });

  it("puts additionalPrompt before the description in advanced mode too", () => {
    expect(advanced("a red fox --ar 3:2", { additionalPrompt: "Flat colours" })).toMatchObject({
      description: "Flat colours. a red fox",
      aspectRatio: "3:2",
    });
  });

  it("replaces only the description with optimizedDescription, keeping additionalPrompt word for word", () => {
    const request = simple("a fox", [], {
      additionalPrompt: "Brand style: warm tones",
      optimizedDescription: "a finely detailed red fox in fresh snow",
    });
    expect(request.description).toBe("Brand style: warm tones. a finely detailed red fox in fresh snow");
  });

  it("throws a PromptError with the problems of an advanced-mode prompt", () => {
    expect(() => advanced("a fox --chaos 101")).toThrow(PromptError);
    expect(() => advanced("a fox --chaos 101")).toThrow("--chaos: must be a whole number from 0 to 100");
  });

  it("throws a PromptError for flags in a simple-mode prompt", () => {
    expect(() => simple("a fox --ar 16:9")).toThrow(
      "flags such as --ar are not allowed in simple mode; use params",
    );
  });
});

describe("renderDescription", () => {
  it("writes the description and the words of what has no flag, without any flag", () => {
    const request = simple("a red fox", [
      { name: "Time", value: "night" },
      { name: "camera", value: "Leica --v 5" },
      { name: "format", value: "16:9" },
      { name: "interdiction", value: "trees" },
    ]);
    expect(renderDescription(request)).toBe(
      "a red fox, high quality realistic photo, at night, shot on Leica v 5",
    );
  });
});

describe("renderCommand", () => {
  it("writes the description, then the flags in the table's order, leaving defaults out", () => {
    expect(renderCommand(advanced("a fox --tile --seed 7 --c 0 --s 100 --v 6 --no text --aspect 2:1"))).toBe(
      "a fox --ar 2:1 --no text --seed 7 --v 6 --tile",
    );
  });

  it("writes --style raw for --raw", () => {
    expect(renderCommand(advanced("a fox --raw"))).toBe("a fox --style raw");
  });

  it("writes the description alone for a command at its defaults", () => {
    expect(renderCommand(advanced("a fox --ar 1:1 --chaos 0 --stylize 100"))).toBe("a fox");
  });

  it("turns quality hints, time of day, weather and camera into words of the description", () => {
    const request = simple("a red fox", [
      { name: "templatePrompt", value: "realisticManuel" },
      { name: "Time", value: "golden hour" },
      { name: "weather", value: "snowy" },
      { name: "camera", value: "Leica M6" },
      { name: "format", value: "16:9" },
    ]);
    expect(renderCommand(request)).toBe(
      "a red fox, realistic smartphone photo, at golden hour, in the snow, shot on Leica M6 --ar 16:9",
    );
  });

  it("puts the image to start from first and the version as --v; the subject mode changes nothing", () => {
    const request = simple("a red fox", [
      { name: "fromImageUrl", value: "https://example.com/fox.png" },
      { name: "version", value: "6.1" },
      { name: "angle", value: "low angle" },
      { name: "photographe", value: "Ansel Adams" },
      { name: "sujetMode", value: "portrait" },
    ]);
    expect(renderCommand(request)).toBe(
      "https://example.com/fox.png a red fox, high quality realistic photo, camera angle: low angle, in the style of the photographer Ansel Adams --v 6.1",
    );
  });

  it("keeps flag-like text of free-text params from turning into flags", () => {
    const request = simple("a fox", [
      { name: "camera", value: "Leica --v 5" },
      { name: "interdiction", value: "a —tile" },
    ]);
    const reparsed = parseCommand(renderCommand(request));
    expect(reparsed).toMatchObject({ ok: true, command: { settings: { negative: ["a tile"] } } });
  });

  it.each([
    "a red fox in the snow",
    "a fox --ar 32:18 --chaos 40 --stylize 750 --no text, logos --seed 42",
    "a fox —w 100 —q 4 —exp 10 —iw .5 —sref https://example.com/a.png —sw 200",
    "a fox --version 6.1 --niji --tile --raw",
    "a fox --niji 6 --style raw --c 100 --s 0",
    "a well--known fox — asleep --no rain,,snow",
  ])("round-trips `%s`: the rendered command compiles to the same request", (prompt) => {
    const request = advanced(prompt);
    expect(advanced(renderCommand(request))).toEqual(request);
  });

  it("renders a simple-mode generation into a command with the same ratio, chaos, stylize and negative", () => {
    const request = simple("a red fox", [
      { name: "templatePrompt", value: "realisticQuality" },
      { name: "format", value: "4:7" },
      { name: "weather", value: "thunderstorm" },
      { name: "time", value: "midnight" },
      { name: "camera", value: "Canon EOS R5" },
      { name: "chaos", value: "35" },
      { name: "stylize", value: "0" },
      { name: "interdiction", value: "people, cars" },
    ]);
    expect(commandFields(advanced(renderCommand(request)))).toEqual(commandFields(request));
  });

  it("renders a simple-mode generation at its defaults into a command at the same defaults", () => {
    const request = simple("a red fox");
    expect(commandFields(advanced(renderCommand(request)))).toEqual(commandFields(request));
  });
});
