// Boxplot statistics as the paper draws them (section V): box = Q1..Q3, line = median,
// whiskers at the furthest data within Q1 − 1.5·IQR and Q3 + 1.5·IQR, the rest are outliers.
const WHISKER_IQR = 1.5;

/** Linear-interpolated quantile of sorted values (same as DuckDB's quantile_cont). @param {number[]} sorted @param {number} q */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** @param {number[]} values */
export function median(values) {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/**
 * @param {number[]} values
 * @returns {{n: number, min: number, q1: number, median: number, q3: number, max: number, outliers: number[]} | null}
 */
export function boxStats(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const q1 = quantile(v, 0.25);
  const q3 = quantile(v, 0.75);
  const iqr = q3 - q1;
  const inside = v.filter((x) => x >= q1 - WHISKER_IQR * iqr && x <= q3 + WHISKER_IQR * iqr);
  return { n: v.length, min: inside[0], q1, median: quantile(v, 0.5), q3, max: inside[inside.length - 1], outliers: v.filter((x) => !inside.includes(x)) };
}
