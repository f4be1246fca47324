import sharp from "sharp";

export type Colour = { r: number; g: number; b: number };

export const RED: Colour = { r: 220, g: 30, b: 30 };
export const GREEN: Colour = { r: 30, g: 200, b: 40 };
export const BLUE: Colour = { r: 30, g: 60, b: 220 };
export const YELLOW: Colour = { r: 230, g: 210, b: 30 };

/** A plain picture such as an engine's service answers, in the format it uses. */
export function fakePicture(
  width: number,
  height: number,
  { format = "png", colour = RED }: { format?: "png" | "webp" | "jpeg"; colour?: Colour } = {},
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** A 2×2 grid as Midjourney draws one: each quarter `width` × `height`, red, green, blue then yellow. */
export function fakeGrid(width: number, height: number): Promise<Buffer> {
  const quarters = [RED, GREEN, BLUE, YELLOW].map((background, index) => ({
    input: { create: { width, height, channels: 3 as const, background } },
    left: (index % 2) * width,
    top: Math.floor(index / 2) * height,
  }));
  return sharp({ create: { width: 2 * width, height: 2 * height, channels: 3, background: RED } })
    .composite(quarters)
    .png()
    .toBuffer();
}

/** The mean colour of a picture, to tell which one it is. */
export async function meanColour(bytes: Buffer | ArrayBuffer): Promise<Colour> {
  const { channels } = await sharp(Buffer.from(bytes as ArrayBuffer)).stats();
  const [r, g, b] = channels.map((channel) => Math.round(channel.mean));
  return { r: r ?? 0, g: g ?? 0, b: b ?? 0 };
}
