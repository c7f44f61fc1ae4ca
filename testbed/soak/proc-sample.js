// RSS and open file descriptors of a process, read from /proc (Linux), and the least-squares
// slope of a series, to flag upward trends over a soak.
import { readdirSync, readFileSync } from 'node:fs';

/** @param {number} pid @returns {{rssMB: number, fds: number} | null}  null when the process is gone */
export function sampleProcess(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
    return { rssMB: kb / 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

/**
 * Least-squares slope of y over x.
 * @param {number[]} xs @param {number[]} ys
 */
export function slope(xs, ys) {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) { num += (xs[i] - mx) * (ys[i] - my); den += (xs[i] - mx) ** 2; }
  return den === 0 ? 0 : num / den;
}

/** @param {number[]} sorted ascending @param {number} q 0..1 */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
