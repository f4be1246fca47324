import { FORMATS } from "@imagehub/domain";

/** The size of an image of `format` ("16:9") whose long edge is `longEdge`; the short edge a multiple of 8. */
export function dimensionsFor(format: string, longEdge: number): { width: number; height: number } {
  if (!(FORMATS as readonly string[]).includes(format)) throw new Error(`unknown format ${format}`);
  const [across = 1, down = 1] = format.split(":").map(Number);
  const shortEdge = Math.max(
    8,
    Math.round((longEdge * Math.min(across, down)) / Math.max(across, down) / 8) * 8,
  );
  return across >= down ? { width: longEdge, height: shortEdge } : { width: shortEdge, height: longEdge };
}
