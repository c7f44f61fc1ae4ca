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

/** @param {number} x  to 0.01 (ms, MB/s): more digits would be noise */
export function round(x) {
  return Math.round(x * 100) / 100;
}
