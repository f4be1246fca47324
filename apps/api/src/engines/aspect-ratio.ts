/**
 * The most elongated picture we draw: wider ratios (advanced mode accepts any "W:H") are clamped to 4:1,
 * as Midjourney clamps its own; beyond that the short edge gets too thin to hold a landscape.
 */
export const MAX_ASPECT_RATIO = 4;

/**
 * The size of an image of aspect ratio `ratio` ("16:9", "21:9", "3:1") whose long edge is `longEdge`; the
 * short edge a multiple of 8, and no shorter than a quarter of the long edge (see MAX_ASPECT_RATIO).
 */
export function dimensionsFor(ratio: string, longEdge: number): { width: number; height: number } {
  const { elongation, isLandscape } = readRatio(ratio);
  const shortEdge = Math.max(8, Math.round(longEdge / elongation / 8) * 8);
  return isLandscape ? { width: longEdge, height: shortEdge } : { width: shortEdge, height: longEdge };
}

/**
 * The largest size of aspect ratio `ratio`, as dimensionsFor sizes it, that a `width` × `height` picture
 * holds: what is left of a service's picture once cropped to the ratio asked for.
 */
export function dimensionsWithin(
  ratio: string,
  width: number,
  height: number,
): { width: number; height: number } {
  const { elongation, isLandscape } = readRatio(ratio);
  const longEdge = isLandscape
    ? Math.min(width, Math.floor(height * elongation))
    : Math.min(height, Math.floor(width * elongation));
  return dimensionsFor(ratio, longEdge);
}

/** How many times longer the long edge is than the short one (clamped), and which edge is the long one. */
function readRatio(ratio: string): { elongation: number; isLandscape: boolean } {
  const match = /^(\d+):(\d+)$/.exec(ratio);
  const across = Number(match?.[1]);
  const down = Number(match?.[2]);
  if (!(across > 0 && down > 0)) throw new Error(`invalid aspect ratio ${ratio}`);
  return {
    elongation: Math.min(Math.max(across, down) / Math.min(across, down), MAX_ASPECT_RATIO),
    isLandscape: across >= down,
  };
}
