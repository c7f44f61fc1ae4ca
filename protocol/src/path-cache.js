// What a source's downloads learnt about its path to each client (the in-flight limit's
// PathEstimate), kept across connections: a client's next connection starts from it instead of
// from nothing. Keyed by whatever names the client's path (the proxy uses the client's address and
// its ticket's client id). Bounded in age and count. Pure: the caller passes the clock.

import { PATH_CACHE_MAX_AGE_MS, PATH_CACHE_MAX_ENTRIES } from './inflight-constants.js';

/** @typedef {import('./inflight-limit.js').PathEstimate} PathEstimate */

/**
 * @param {{ maxAgeMs?: number, maxEntries?: number }} [o]
 */
export function createPathCache({ maxAgeMs = PATH_CACHE_MAX_AGE_MS, maxEntries = PATH_CACHE_MAX_ENTRIES } = {}) {
  /** insertion order is recency order: a set moves its key to the end */
  const entries = /** @type {Map<string, { path: PathEstimate, at: number }>} */ (new Map());
  return {
    /** The path last measured to `key`, if not older than maxAgeMs. @param {string} key @param {number} now ms */
    get(key, now) {
      const e = entries.get(key);
      if (!e) return null;
      if (now - e.at > maxAgeMs) {
        entries.delete(key);
        return null;
      }
      return { ...e.path };
    },
    /** Remember a download's estimate (null: it measured nothing; the older one stays). @param {string} key @param {PathEstimate | null} path @param {number} now ms */
    set(key, path, now) {
      if (!path || !(path.rate > 0) || !(path.minRttMs > 0) || !Number.isFinite(path.rate) || !Number.isFinite(path.minRttMs)) return;
      entries.delete(key);
      entries.set(key, { path: { rate: path.rate, minRttMs: path.minRttMs }, at: now });
      if (entries.size > maxEntries) entries.delete(/** @type {string} */ (entries.keys().next().value));
    },
    get size() {
      return entries.size;
    },
  };
}
