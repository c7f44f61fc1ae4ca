// Download metrics, as defined in the paper (equation 2). One definition, used by the
// protocol receivers, the simulator, ProxyClientLib and Origo.

/**
 * @typedef {object} TransferCounts
 * @property {number} grossBytes  every payload byte that reached the client, duplicates included
 * @property {number} netBytes    the bytes of the object delivered to the caller
 * @property {number} durationMs  from the request to the last delivered byte
 */

/**
 * Derive throughput, goodput and normalized goodput.
 * throughput = gross / duration, goodput = net / duration, normalized = goodput / throughput.
 * @param {TransferCounts} c
 * @returns {{throughputBps: number, goodputBps: number, normalizedGoodput: number}}
 *   rates in bytes per second; normalizedGoodput in [0, 1] (0 when nothing arrived)
 */
export function deriveRates({ grossBytes, netBytes, durationMs }) {
  const seconds = Math.max(durationMs, 1e-3) / 1000; // guard: a 0 ms transfer would divide by zero
  const throughputBps = grossBytes / seconds;
  const goodputBps = netBytes / seconds;
  const normalizedGoodput = grossBytes > 0 ? netBytes / grossBytes : 0;
  return { throughputBps, goodputBps, normalizedGoodput };
}

/**
 * Median of a list of numbers (NaN for an empty list).
 * @param {number[]} values
 */
export function median(values) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
