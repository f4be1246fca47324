import type { TIMES, WEATHERS } from "@imagehub/domain";
import sharp from "sharp";
import { createRandomFromText } from "../common/seeded-random.js";

export type TimeOfDay = (typeof TIMES)[number];
export type Weather = (typeof WEATHERS)[number];
export type SceneElement = keyof typeof ELEMENT_WORDS;
/** Each part of the picture draws from its own stream, so one part drawing more never moves another. */
export type ScenePart = "palette" | "sky" | "land" | "trees" | "city" | "weather";

/** What the landscape renderer draws: everything it needs, already decided. */
export interface LandscapeScene {
  width: number;
  height: number;
  /** Absent: afternoon. */
  timeOfDay: TimeOfDay | undefined;
  /** Absent: sunny. */
  weather: Weather | undefined;
  elements: ReadonlySet<SceneElement>;
  randomFor: (part: ScenePart) => () => number;
  /** Multipliers applied to the finished picture; 1 leaves it as drawn. */
  saturation: number;
  contrast: number;
}

export interface BuiltinRenderInput {
  prompt: string;
  seed: number;
  width: number;
  height: number;
}

type Hsl = readonly [hue: number, saturation: number, lightness: number];

interface SkyPalette {
  zenith: Hsl;
  horizon: Hsl;
  /** The sun, or the moon at night; elevation 0 sits on the horizon, 1 at the top of the picture. */
  sun: { color: Hsl; elevation: number; glow: number };
  stars: number;
  /** How lit the land is, relative to full daylight. */
  daylight: number;
  water: Hsl;
}

/** One sky per time of day (TIMES). */
const SKIES: Record<TimeOfDay, SkyPalette> = {
  sunrise: {
    zenith: [220, 45, 58],
    horizon: [28, 90, 76],
    sun: { color: [32, 100, 72], elevation: 0.06, glow: 0.5 },
    stars: 0,
    daylight: 0.72,
    water: [210, 40, 50],
  },
  morning: {
    zenith: [205, 65, 62],
    horizon: [195, 70, 88],
    sun: { color: [50, 100, 90], elevation: 0.5, glow: 0.2 },
    stars: 0,
    daylight: 0.95,
    water: [205, 55, 45],
  },
  afternoon: {
    zenith: [214, 72, 52],
    horizon: [200, 75, 84],
    sun: { color: [50, 100, 88], elevation: 0.78, glow: 0.15 },
    stars: 0,
    daylight: 1,
    water: [205, 55, 40],
  },
  sunset: {
    zenith: [255, 40, 38],
    horizon: [18, 92, 62],
    sun: { color: [16, 100, 58], elevation: 0.05, glow: 0.6 },
    stars: 0,
    daylight: 0.6,
    water: [15, 35, 38],
  },
  evening: {
    zenith: [235, 45, 20],
    horizon: [290, 30, 42],
    sun: { color: [48, 40, 86], elevation: 0.35, glow: 0.1 },
    stars: 30,
    daylight: 0.4,
    water: [235, 35, 22],
  },
  "golden hour": {
    zenith: [35, 55, 66],
    horizon: [40, 90, 74],
    sun: { color: [40, 100, 76], elevation: 0.16, glow: 0.55 },
    stars: 0,
    daylight: 0.85,
    water: [32, 45, 45],
  },
  night: {
    zenith: [230, 60, 8],
    horizon: [228, 45, 22],
    sun: { color: [50, 40, 90], elevation: 0.7, glow: 0.08 },
    stars: 90,
    daylight: 0.25,
    water: [218, 65, 12],
  },
  midnight: {
    zenith: [235, 70, 4],
    horizon: [232, 50, 12],
    sun: { color: [50, 30, 88], elevation: 0.85, glow: 0.05 },
    stars: 140,
    daylight: 0.15,
    water: [225, 70, 7],
  },
};

interface WeatherOverlay {
  skySaturation: number;
  /** How much light gets through: multiplies the lightness of sky, land and water. */
  light: number;
  /** 1: sun, moon and stars fully visible; 0: hidden behind the weather. */
  clearSky: number;
  clouds: { count: number; lightness: number; opacity: number };
  /** Opacity of the veil over the whole picture. */
  fog: number;
  rainStreaks: number;
  snowFlakes: number;
  hasLightning: boolean;
  /** 0–1: how much the land is whitened by snow. */
  snowCover: number;
  landSaturation: number;
}

/** One overlay per weather (WEATHERS). */
const WEATHER_OVERLAYS: Record<Weather, WeatherOverlay> = {
  sunny: {
    skySaturation: 1,
    light: 1,
    clearSky: 1,
    clouds: { count: 2, lightness: 97, opacity: 0.6 },
    fog: 0,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 1,
  },
  cloudy: {
    skySaturation: 0.45,
    light: 0.95,
    clearSky: 0.35,
    clouds: { count: 9, lightness: 84, opacity: 0.85 },
    fog: 0,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.6,
  },
  foggy: {
    skySaturation: 0.25,
    light: 1.05,
    clearSky: 0.2,
    clouds: { count: 0, lightness: 85, opacity: 0 },
    fog: 0.55,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.35,
  },
  rainy: {
    skySaturation: 0.3,
    light: 0.75,
    clearSky: 0,
    clouds: { count: 10, lightness: 55, opacity: 0.9 },
    fog: 0.12,
    rainStreaks: 160,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.5,
  },
  thunderstorm: {
    skySaturation: 0.25,
    light: 0.45,
    clearSky: 0,
    clouds: { count: 12, lightness: 28, opacity: 0.95 },
    fog: 0,
    rainStreaks: 220,
    snowFlakes: 0,
    hasLightning: true,
    snowCover: 0,
    landSaturation: 0.4,
  },
  snowy: {
    skySaturation: 0.3,
    light: 1.15,
    clearSky: 0.25,
    clouds: { count: 6, lightness: 92, opacity: 0.8 },
    fog: 0.1,
    rainStreaks: 0,
    snowFlakes: 220,
    hasLightning: false,
    snowCover: 0.85,
    landSaturation: 0.15,
  },
};

/** A case-insensitive match of whole words, accented ones included; a trailing `*` allows any ending. */
function words(...list: string[]): RegExp {
  const alternatives = list.map((word) => word.replace(/\*$/, "\\p{L}*")).join("|");
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, "iu");
}

/** Words that put an element in the picture (description) or take it out (negative), English and French. */
const ELEMENT_WORDS = {
  water: words(
    "seas?",
    "oceans?",
    "mer",
    "beach(es)?",
    "plages?",
    "lakes?",
    "lacs?",
    "rivers?",
    "rivières?",
    "harbou?rs?",
    "ports?",
    "coasts?",
    "côtes?",
    "canals?",
    "canaux",
    "bays?",
    "baies?",
    "water",
    "eau",
  ),
  trees: words(
    "forests?",
    "forêts?",
    "trees?",
    "arbres?",
    "woods?",
    "bois",
    "jungles?",
    "pines?",
    "pins",
    "oaks?",
    "chênes?",
  ),
  peaks: words("mountain*", "montagne*", "peaks?", "sommets?", "alpine", "alpages?", "valleys?", "vallées?"),
  city: words(
    "city",
    "cities",
    "villes?",
    "streets?",
    "rues?",
    "rooftops?",
    "toits?",
    "paris",
    "stations?",
    "gares?",
    "villages?",
    "buildings?",
    "immeubles?",
  ),
  sun: words("suns?", "soleil", "moons?", "lune"),
  stars: words("stars?", "étoiles?"),
  clouds: words("clouds?", "nuages?"),
};

/** Drawn whenever the time and weather call for them, unless a negative term names them. */
const AMBIENT_ELEMENTS: readonly SceneElement[] = ["sun", "stars", "clouds"];

/** Fallbacks read from the description, in order: the first match wins. */
const TIME_WORDS: ReadonlyArray<readonly [TimeOfDay, RegExp]> = [
  ["midnight", words("midnight", "minuit")],
  ["night", words("night", "nights", "nuit", "nuits", "nocturn*")],
  ["golden hour", words("golden hour", "heure dorée")],
  ["sunrise", words("sunrise", "dawn", "aube", "lever du soleil", "lever")],
  ["sunset", words("sunset", "dusk", "coucher du soleil", "coucher", "crépuscule")],
  ["evening", words("evening", "soir*")],
  ["morning", words("morning", "matin*")],
  ["afternoon", words("afternoon", "après-midi", "midday", "noon", "midi")],
];
const WEATHER_WORDS: ReadonlyArray<readonly [Weather, RegExp]> = [
  ["snowy", words("snow*", "neige*", "enneig*", "winter", "hiver", "frozen", "gel*", "blizzard")],
  ["thunderstorm", words("thunder*", "storms?", "orages?", "lightning", "éclairs?")],
  ["rainy", words("rain", "rainy", "raining", "pluie", "pluvieu*", "showers?", "averses?")],
  ["foggy", words("fog*", "brouillard", "mist*", "brum*", "haze", "hazy")],
  ["cloudy", words("cloud*", "nuag*", "overcast", "couvert")],
  ["sunny", words("sunny", "sunshine", "ensoleill*")],
];

/** The time, weather and elements a description asks for, without those a negative term names. */
export function readScene(
  description: string,
  negative: readonly string[] = [],
): Pick<LandscapeScene, "timeOfDay" | "weather" | "elements"> {
  const isNamed = (element: SceneElement) => ELEMENT_WORDS[element].test(description);
  const isRefused = (element: SceneElement) => negative.some((term) => ELEMENT_WORDS[element].test(term));
  const elements = (Object.keys(ELEMENT_WORDS) as SceneElement[]).filter(
    (element) => (AMBIENT_ELEMENTS.includes(element) || isNamed(element)) && !isRefused(element),
  );
  return {
    timeOfDay: TIME_WORDS.find(([, pattern]) => pattern.test(description))?.[0],
    weather: WEATHER_WORDS.find(([, pattern]) => pattern.test(description))?.[0],
    elements: new Set(elements),
  };
}

/**
 * The engine that needs no outside service, for catalogue images: a procedural landscape steered by the
 * words of the prompt. The same prompt and seed always give the same picture.
 */
export function renderBuiltinImage({ prompt, seed, width, height }: BuiltinRenderInput): Promise<Buffer> {
  return renderLandscape({
    ...readScene(prompt),
    width,
    height,
    randomFor: (part) => createRandomFromText(`${seed}:${prompt}:${part}`),
    saturation: 1,
    contrast: 1,
  });
}

/** A landscape drawn as SVG and rasterised by sharp into a JPEG. */
export async function renderLandscape(scene: LandscapeScene): Promise<Buffer> {
  let image = sharp(Buffer.from(landscapeSvg(scene)));
  if (scene.saturation !== 1) image = image.modulate({ saturation: scene.saturation });
  // Contrast around mid-grey, so the picture's overall brightness stays where it was.
  if (scene.contrast !== 1) image = image.linear(scene.contrast, 128 * (1 - scene.contrast));
  return image.jpeg({ quality: 86 }).toBuffer();
}

function landscapeSvg(scene: LandscapeScene): string {
  const { width: w, height: h, elements } = scene;
  const sky = SKIES[scene.timeOfDay ?? "afternoon"];
  const weather = WEATHER_OVERLAYS[scene.weather ?? "sunny"];
  const has = (element: SceneElement) => elements.has(element);
  const palette = scene.randomFor("palette");
  // Greens, olives, ochres and teals: other hues make hills nobody has seen.
  const landHue = 25 + palette() * 135;
  const skyHueShift = (palette() - 0.5) * 40;
  const skyColor = ([hue, saturation, lightness]: Hsl) =>
    hsl([hue + skyHueShift, saturation * weather.skySaturation, lightness * weather.light]);
  const land = scene.randomFor("land");
  const horizon = h * (0.45 + land() * 0.2);
  const layers: string[] = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${skyColor(sky.zenith)}"/><stop offset="1" stop-color="${skyColor(sky.horizon)}"/></linearGradient>`,
    `<radialGradient id="glow"><stop offset="0" stop-color="${hsl(sky.sun.color)}" stop-opacity="${sky.sun.glow * weather.clearSky}"/><stop offset="1" stop-color="${hsl(sky.sun.color)}" stop-opacity="0"/></radialGradient></defs>`,
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
  ];
  const skyRandom = scene.randomFor("sky");
  if (has("stars")) {
    const stars = Math.round(sky.stars * weather.clearSky);
    for (let star = 0; star < stars; star += 1)
      layers.push(
        `<circle cx="${round(skyRandom() * w)}" cy="${round(skyRandom() * horizon)}" r="${round(0.6 + skyRandom() * 1.6)}" fill="#fff" opacity="${round(0.4 + skyRandom() * 0.6)}"/>`,
      );
  }
  if (has("sun")) {
    const x = w * (0.15 + skyRandom() * 0.7);
    const y = horizon * (1 - sky.sun.elevation * 0.85);
    const radius = h * 0.065;
    layers.push(
      `<circle cx="${round(x)}" cy="${round(y)}" r="${round(radius * 4)}" fill="url(#glow)"/>`,
      `<circle cx="${round(x)}" cy="${round(y)}" r="${round(radius)}" fill="${hsl(sky.sun.color)}" opacity="${round(0.15 + 0.8 * weather.clearSky)}"/>`,
    );
  }
  if (has("clouds")) {
    const lightness = weather.clouds.lightness * (0.3 + 0.7 * sky.daylight);
    for (let cloud = 0; cloud < weather.clouds.count; cloud += 1)
      layers.push(cloudSvg(w, horizon, hsl([220, 8, lightness]), weather.clouds.opacity, skyRandom));
  }

  const landColor = ([hue, saturation, lightness]: Hsl, snowLightness: number) => {
    const lit = lightness * sky.daylight * weather.light;
    return hsl([hue, saturation * weather.landSaturation, lit + (snowLightness - lit) * weather.snowCover]);
  };
  const snowLightness = (lightness: number) => lightness * (0.35 + 0.65 * sky.daylight);
  if (has("peaks"))
    layers.push(
      ridge(w, h, horizon - h * 0.04, h * 0.24, 5, landColor([220, 16, 58], snowLightness(94)), land),
    );
  const ridges = 2 + Math.floor(land() * 3);
  for (let index = 0; index < ridges; index += 1) {
    const depth = (index + 1) / ridges;
    const color = landColor([landHue + index * 12, 42, 55 - 30 * depth], snowLightness(92 - 14 * depth));
    layers.push(ridge(w, h, horizon + (h - horizon) * depth * 0.55, h * 0.12, 6 + index * 3, color, land));
  }
  const shore = has("water") ? h * 0.78 : h;
  if (has("water"))
    layers.push(
      `<rect x="0" y="${round(shore)}" width="${w}" height="${round(h - shore)}" fill="${skyColor(sky.water)}" opacity="0.9"/>`,
    );
  if (has("trees")) {
    const treeRandom = scene.randomFor("trees");
    const color = landColor([140, 45, 21], snowLightness(32));
    const trees = 10 + Math.floor(treeRandom() * 20);
    for (let tree = 0; tree < trees; tree += 1) {
      const x = treeRandom() * w;
      const base = horizon + (shore - horizon) * (0.3 + treeRandom() * 0.6);
      const size = h * (0.06 + treeRandom() * 0.1);
      layers.push(
        `<polygon points="${round(x)},${round(base - size)} ${round(x - size * 0.35)},${round(base)} ${round(x + size * 0.35)},${round(base)}" fill="${color}"/>`,
      );
    }
  }
  if (has("city")) layers.push(citySvg(w, h, horizon, sky.daylight, scene.randomFor("city")));

  const weatherRandom = scene.randomFor("weather");
  if (weather.fog > 0)
    layers.push(
      `<rect width="${w}" height="${h}" fill="${hsl([210, 8, 88 * (0.3 + 0.7 * sky.daylight)])}" opacity="${weather.fog}"/>`,
    );
  if (weather.rainStreaks > 0) layers.push(rainSvg(w, h, weather.rainStreaks, weatherRandom));
  if (weather.snowFlakes > 0) layers.push(snowSvg(w, h, weather.snowFlakes, weatherRandom));
  if (weather.hasLightning) layers.push(lightningSvg(w, h, horizon, weatherRandom));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${layers.join("")}</svg>`;
}

/** A hill line across the picture, filled down to the bottom edge. */
function ridge(
  w: number,
  h: number,
  baseline: number,
  amplitude: number,
  points: number,
  color: string,
  random: () => number,
) {
  const step = w / points;
  const path = [`M0 ${h}`, `L0 ${round(baseline)}`];
  for (let index = 1; index <= points; index += 1) {
    const x = index * step;
    const y = baseline - amplitude * random();
    path.push(`Q${round(x - step / 2)} ${round(baseline - amplitude * random())} ${round(x)} ${round(y)}`);
  }
  path.push(`L${w} ${h}`, "Z");
  return `<path d="${path.join(" ")}" fill="${color}"/>`;
}

/** A few overlapping ellipses in the upper sky. */
function cloudSvg(w: number, horizon: number, color: string, opacity: number, random: () => number) {
  const x = random() * w;
  const y = horizon * (0.08 + random() * 0.5);
  const size = w * (0.05 + random() * 0.08);
  const puffs: string[] = [];
  for (let puff = 0; puff < 4; puff += 1)
    puffs.push(
      `<ellipse cx="${round(x + (random() - 0.5) * size * 2)}" cy="${round(y + (random() - 0.5) * size * 0.4)}" rx="${round(size * (0.6 + random() * 0.5))}" ry="${round(size * (0.3 + random() * 0.2))}"/>`,
    );
  return `<g fill="${color}" opacity="${opacity}">${puffs.join("")}</g>`;
}

function citySvg(w: number, h: number, horizon: number, daylight: number, random: () => number) {
  const buildings: string[] = [];
  const hasLitWindows = daylight < 0.5;
  const facade = hsl([228, 12, 12 + 28 * daylight]);
  for (let x = 0; x < w; x += w / (14 + Math.floor(random() * 10))) {
    const height = h * (0.08 + random() * 0.25);
    buildings.push(
      `<rect x="${round(x)}" y="${round(horizon - height)}" width="${round(w / 24)}" height="${round(height)}" fill="${facade}"/>`,
    );
    if (hasLitWindows)
      for (let lit = 0; lit < 4; lit += 1)
        buildings.push(
          `<rect x="${round(x + (w / 24) * (0.15 + random() * 0.6))}" y="${round(horizon - height * (0.1 + random() * 0.8))}" width="${round(w / 160)}" height="${round(w / 140)}" fill="#ffd98a"/>`,
        );
  }
  return buildings.join("");
}

/** Slanted streaks, all in one path so that hundreds of them stay cheap to rasterise. */
function rainSvg(w: number, h: number, count: number, random: () => number) {
  const length = h * 0.05;
  const segments: string[] = [];
  for (let streak = 0; streak < count; streak += 1)
    segments.push(`M${round(random() * w)} ${round(random() * h)}l${round(-length * 0.25)} ${round(length)}`);
  return `<path d="${segments.join("")}" stroke="${hsl([210, 15, 82])}" stroke-width="${round(Math.max(1, w / 700))}" opacity="0.45"/>`;
}

function snowSvg(w: number, h: number, count: number, random: () => number) {
  const flakes: string[] = [];
  for (let flake = 0; flake < count; flake += 1)
    flakes.push(
      `<circle cx="${round(random() * w)}" cy="${round(random() * h)}" r="${round((1 + random() * 2.5) * (w / 1024))}"/>`,
    );
  return `<g fill="#fff" opacity="0.85">${flakes.join("")}</g>`;
}

/** A jagged bolt from the clouds down to the horizon, with the faint flash it throws on everything. */
function lightningSvg(w: number, h: number, horizon: number, random: () => number) {
  let x = w * (0.2 + random() * 0.6);
  const points = [`${round(x)},0`];
  for (let y = horizon / 6; y <= horizon; y += horizon / 6) {
    x += (random() - 0.5) * w * 0.08;
    points.push(`${round(x)},${round(y)}`);
  }
  const bolt = points.join(" ");
  return [
    `<rect width="${w}" height="${h}" fill="#e8ecff" opacity="0.08"/>`,
    `<polyline points="${bolt}" fill="none" stroke="#c9d4ff" stroke-width="${round(w / 90)}" opacity="0.3"/>`,
    `<polyline points="${bolt}" fill="none" stroke="#fffbe6" stroke-width="${round(w / 350)}"/>`,
  ].join("");
}

function hsl([hue, saturation, lightness]: Hsl): string {
  return `hsl(${round(((hue % 360) + 360) % 360)},${round(clamp(saturation))}%,${round(clamp(lightness))}%)`;
}

function clamp(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}

/** One decimal is plenty for pixels and keeps the SVG short. */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}
