import sharp from "sharp";
import { createRandomFromText } from "../common/seeded-random.js";

export interface BuiltinRenderInput {
  prompt: string;
  seed: number;
  width: number;
  height: number;
}

/** Words that steer the picture, in English and French. */
const MOODS = {
  night: /\b(night|nuit|midnight|minuit|evening|soir)\b/i,
  dusk: /\b(sunset|sunrise|coucher|lever|golden hour|heure dorée|dawn|aube)\b/i,
  snow: /\b(snow\w*|neige|enneig\w*|winter|hiver|frozen|gel\w*)\b/i,
  grey: /\b(rain|pluie|fog|brouillard|mist\w*|brum\w*|cloudy|nuageux|storm|orage|thunderstorm)\b/i,
  water: /\b(sea|ocean|mer|beach|plage|lake|lac|river|rivière|harbour|port|coast|côte|canal|bay|baie)\b/i,
  trees: /\b(forest|forêt|tree|arbre|wood|bois|jungle|pine|pins|oak|chêne)\b/i,
  peaks: /\b(mountain\w*|montagne\w*|peak|sommet|alpine|alpage|valley|vallée)\b/i,
  city: /\b(city|ville|street|rue|rooftop|toit|paris|station|gare|village)\b/i,
};

/**
 * The engine that needs no outside service: a procedural landscape drawn as SVG and rasterised by sharp.
 * The same prompt and seed always give the same picture; a few words steer sky, ground and elements.
 */
export async function renderBuiltinImage(input: BuiltinRenderInput): Promise<Buffer> {
  const random = createRandomFromText(`${input.seed}:${input.prompt}`);
  const svg = landscapeSvg(input, random);
  return sharp(Buffer.from(svg)).jpeg({ quality: 86 }).toBuffer();
}

function landscapeSvg({ prompt, width: w, height: h }: BuiltinRenderInput, random: () => number): string {
  const has = (mood: keyof typeof MOODS) => MOODS[mood].test(prompt);
  const hue = Math.floor(random() * 360);
  const sky = has("night")
    ? ["#050a1f", "#1c2452"]
    : has("dusk")
      ? ["#f6a45c", "#f4d2b0"]
      : has("grey")
        ? ["#8b949c", "#c9cdd1"]
        : has("snow")
          ? ["#c9dcef", "#f3f6fa"]
          : [
              `hsl(${205 + Math.floor(random() * 20)},70%,55%)`,
              `hsl(${195 + Math.floor(random() * 20)},75%,85%)`,
            ];
  const horizon = h * (0.45 + random() * 0.2);
  const layers: string[] = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${sky[0]}"/><stop offset="1" stop-color="${sky[1]}"/></linearGradient></defs>`,
    `<rect width="${w}" height="${h}" fill="url(#sky)"/>`,
  ];
  if (has("night")) {
    for (let star = 0; star < 90; star += 1) {
      layers.push(
        `<circle cx="${random() * w}" cy="${random() * horizon}" r="${0.6 + random() * 1.6}" fill="#fff" opacity="${0.4 + random() * 0.6}"/>`,
      );
    }
    layers.push(
      `<circle cx="${w * (0.15 + random() * 0.7)}" cy="${h * 0.18}" r="${h * 0.06}" fill="#f4f1de"/>`,
    );
  } else {
    const sunY = has("dusk") ? horizon - h * 0.04 : h * (0.12 + random() * 0.15);
    layers.push(
      `<circle cx="${w * (0.15 + random() * 0.7)}" cy="${sunY}" r="${h * 0.07}" fill="${has("dusk") ? "#ff7b39" : "#fff6c9"}" opacity="${has("grey") ? 0.35 : 0.95}"/>`,
    );
  }
  if (has("peaks"))
    layers.push(ridge(w, h, horizon - h * 0.25, h * 0.3, 5, has("snow") ? "#e9eef4" : "#6d7a8c", random));
  const ridges = 2 + Math.floor(random() * 3);
  for (let index = 0; index < ridges; index += 1) {
    const depth = (index + 1) / ridges;
    const lightness = has("night") ? 8 + 10 * (1 - depth) : has("snow") ? 92 - 14 * depth : 55 - 30 * depth;
    const saturation = has("snow") || has("grey") ? 8 : 45;
    const color = `hsl(${(hue + 90 + index * 12) % 360},${saturation}%,${lightness}%)`;
    layers.push(ridge(w, h, horizon + (h - horizon) * depth * 0.55, h * 0.12, 6 + index * 3, color, random));
  }
  if (has("water"))
    layers.push(
      `<rect x="0" y="${h * 0.78}" width="${w}" height="${h * 0.22}" fill="${has("night") ? "#0b1a33" : "#2f6f9f"}" opacity="0.9"/>`,
    );
  if (has("trees")) {
    const trees = 10 + Math.floor(random() * 20);
    for (let tree = 0; tree < trees; tree += 1) {
      const x = random() * w;
      const base = horizon + (h - horizon) * (0.3 + random() * 0.6);
      const size = h * (0.06 + random() * 0.1);
      layers.push(
        `<polygon points="${x},${base - size} ${x - size * 0.35},${base} ${x + size * 0.35},${base}" fill="${has("snow") ? "#3d5248" : "#1f4d2b"}"/>`,
      );
    }
  }
  if (has("city")) {
    for (let x = 0; x < w; x += w / (14 + Math.floor(random() * 10))) {
      const height = h * (0.08 + random() * 0.25);
      layers.push(
        `<rect x="${x}" y="${horizon - height}" width="${w / 24}" height="${height}" fill="${has("night") ? "#1a1d2b" : "#5a5f6e"}"/>`,
      );
    }
  }
  if (has("grey")) layers.push(`<rect width="${w}" height="${h}" fill="#d8dde2" opacity="0.35"/>`);
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
  const path = [`M0 ${h}`, `L0 ${baseline}`];
  for (let index = 1; index <= points; index += 1) {
    const x = index * step;
    const y = baseline - amplitude * random();
    path.push(`Q${x - step / 2} ${baseline - amplitude * random()} ${x} ${y}`);
  }
  path.push(`L${w} ${h}`, "Z");
  return `<path d="${path.join(" ")}" fill="${color}"/>`;
}
