// Retry delays for everything that reconnects or re-sends (log shipping, the proxy's link to Origo).

const MAX_DOUBLINGS = 30; // 2^30 × any base is far above every ceiling; keeps the power finite

/**
 * Exponential backoff with jitter: baseMs·2^attempt, capped at maxMs, times a random factor in
 * [0.5, 1), so many clients (or a fleet restarted together) do not retry in lockstep and no
 * delay exceeds maxMs.
 * @param {number} attempt  0 for the first retry
 * @param {{ baseMs: number, maxMs: number, random?: () => number }} opts
 * @returns {number} ms
 */
export function backoffDelayMs(attempt, { baseMs, maxMs, random = Math.random }) {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt), MAX_DOUBLINGS));
  return Math.round(exp * (0.5 + random() / 2));
}
