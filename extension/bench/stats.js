// Order statistics for the bench's samples (nearest-rank, as the paper's CDFs read them).

/** @param {number[]} xs @param {number} q  0..1 @returns {number} */
export function quantile(xs, q) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.min(s.length, Math.max(1, Math.ceil(q * s.length)));
  return s[rank - 1];
}

/** @param {number[]} xs */
export const median = (xs) => quantile(xs, 0.5);

/** @param {number[]} xs */
export const p90 = (xs) => quantile(xs, 0.9);

/** @param {number[]} xs */
export function summary(xs) {
  return { median: round(median(xs)), p90: round(p90(xs)) };
}

/**
 * Each sample against the base sample taken at the same point of the run (the i-th with the
 * i-th): the median of the differences and their middle half. The machine's state drifts during a
 * run (its load, Chromium's caches); a pair shares the state of its point of the run, which one
 * median less another does not. Only whole pairs count.
 * @param {number[]} xs @param {number[]} base
 * @returns {{pairs: number, median: number, q25: number, q75: number} | null}  null without a pair
 */
export function pairedDifference(xs, base) {
  const d = xs.slice(0, base.length).map((x, i) => x - base[i]).filter(Number.isFinite);
  if (d.length === 0) return null;
  return { pairs: d.length, median: round(median(d)), q25: round(quantile(d, 0.25)), q75: round(quantile(d, 0.75)) };
}

/** @param {number} x  to 0.01 (ms, MB/s): more digits would be noise */
export function round(x) {
  return Math.round(x * 100) / 100;
}
