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
  const match = /^(\d+):(\d+)$/.exec(ratio);
  const across = Number(match?.[1]);
  const down = Number(match?.[2]);
  if (!(across > 0 && down > 0)) throw new Error(`invalid aspect ratio ${ratio}`);
  const elongation = Math.min(Math.max(across, down) / Math.min(across, down), MAX_ASPECT_RATIO);
  const shortEdge = Math.max(8, Math.round(longEdge / elongation / 8) * 8);
  return across >= down ? { width: longEdge, height: shortEdge } : { width: shortEdge, height: longEdge };
}
