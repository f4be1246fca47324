import sharp from "sharp";
import { createRandomFromText } from "../common/seeded-random.js";
import { type Hsl, SKIES, WEATHER_OVERLAYS } from "./landscape-palettes.js";
import { type LandscapeScene, readScene, type SceneElement } from "./landscape-scene.js";

export interface BuiltinRenderInput {
  prompt: string;
  seed: number;
  width: number;
  height: number;
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
