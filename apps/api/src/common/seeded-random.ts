import { createHash } from "node:crypto";

/** mulberry32: small, fast and good enough for picking words and shapes; the same seed, the same numbers. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator seeded from any text, through sha256 so that similar texts start far apart. */
export function createRandomFromText(text: string): () => number {
  return createRandom(createHash("sha256").update(text).digest().readUInt32LE(0));
}
