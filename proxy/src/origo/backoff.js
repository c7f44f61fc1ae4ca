/**
 * Exponential backoff with jitter: base·2^attempt capped at max, times a random factor in
 * [0.5, 1.5) so a fleet restarted together does not reconnect in lockstep.
 * @param {number} attempt 0-based
 * @param {{ baseMs: number, maxMs: number, random?: () => number }} opts
 */
export function backoffDelayMs(attempt, { baseMs, maxMs, random = Math.random }) {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp * (0.5 + random()));
}
