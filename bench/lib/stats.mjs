// What the benchmarks report of a set of measurements.

/**
 * The value below which `p` % of the values fall (nearest rank).
 * @param {number[]} values in any order
 * @param {number} p 0 to 100
 */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
