// Circuit breakers for fleet paths that fail: per transport (WebRTC), per proxy, per origin host
// and for Origo. An open breaker skips its path at once instead of failing (or stalling) again;
// it half-opens after a backoff that doubles with each failure in a row. Pure: `now` passed in.

export const BREAKER_BASE_MS = 10_000; // first skip after a failure: a few segments
export const BREAKER_MAX_MS = 5 * 60_000; // ceiling: a fleet path fixed meanwhile is tried again within minutes

export function createBreakers({ baseMs = BREAKER_BASE_MS, maxMs = BREAKER_MAX_MS } = {}) {
  /** @type {Map<string, {failures: number, openUntil: number, code: string}>} */
  const state = new Map();
  return {
    /** @param {string} key @param {number} now */
    allows(key, now) {
      const s = state.get(key);
      return !s || now >= s.openUntil;
    },
    /** @param {string} key @param {string} code @param {number} now */
    fail(key, code, now) {
      const s = state.get(key) ?? { failures: 0, openUntil: 0, code };
      s.failures += 1;
      s.code = code;
      s.openUntil = now + Math.min(maxMs, baseMs * 2 ** (s.failures - 1));
      state.set(key, s);
    },
    /** @param {string} key */
    succeed(key) {
      state.delete(key);
    },
    /** Its backoff passed but it has not succeeded since: the next try is a probe. @param {string} key @param {number} now */
    halfOpen(key, now) {
      const s = state.get(key);
      return s !== undefined && now >= s.openUntil;
    },
    /** @param {string} key @returns {string | null} the code that opened it, while open */
    openCode(key, now) {
      const s = state.get(key);
      return s && now < s.openUntil ? s.code : null;
    },
    /** Forget every failure (the settings changed: each path gets a fresh try). */
    reset() {
      state.clear();
    },
    /** @param {number} now */
    snapshot(now) {
      return [...state].filter(([, s]) => now < s.openUntil).map(([key, s]) => ({ key, code: s.code, failures: s.failures, msLeft: Math.round(s.openUntil - now) }));
    },
  };
}
