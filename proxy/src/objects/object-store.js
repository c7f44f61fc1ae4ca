import { LRUCache } from 'lru-cache';
import { codedError } from '@mutp/common/errors';

/**
 * @typedef {{ bytes: Uint8Array, contentType: string, serverFetchMs: number, fromCache: boolean }} StoredObject
 * @typedef {(url: string, opts?: { signal?: AbortSignal }) =>
 *   Promise<{ bytes: Uint8Array, contentType: string, finalUrl?: string }>} Fetcher
 */

/**
 * The proxy's copy of origin objects: a byte-bounded LRU cache plus single-flight, so that
 * clients and modes asking for one URL at once share one origin download (each
 * requested URL is fetched once).
 * A cache miss past `maxOriginFetches` concurrent origin downloads is refused (503 ERR_PROXY_BUSY)
 * instead of queued: the client has other proxies, and a queue would only hide the overload.
 * @param {{ fetcher: Fetcher, maxBytes: number, now?: () => number, maxOriginFetches?: number }} opts
 */
export function createObjectStore({ fetcher, maxBytes, now = () => performance.now(), maxOriginFetches = Infinity }) {
  /** @type {LRUCache<string, { bytes: Uint8Array, contentType: string, serverFetchMs: number }>} */
  const cache = new LRUCache({
    maxSize: Math.max(1, maxBytes),
    // A 0-byte object still takes a slot; lru-cache needs a positive size.
    sizeCalculation: (v) => Math.max(1, v.bytes.byteLength),
  });
  /** @type {Map<string, Promise<{ bytes: Uint8Array, contentType: string, serverFetchMs: number }>>} */
  const inFlight = new Map();
  let originFetches = 0;

  /**
   * @param {string} url
   * @param {{ signal?: AbortSignal }} [opts] aborts this caller's wait, not the shared fetch
   * @returns {Promise<StoredObject>}
   */
  async function get(url, opts = {}) {
    url = normalizeKey(url);
    const hit = cache.get(url);
    if (hit) return { ...hit, fromCache: true };
    let shared = inFlight.get(url);
    if (!shared) {
      if (inFlight.size >= maxOriginFetches) {
        throw codedError('ERR_PROXY_BUSY', `more than ${maxOriginFetches} concurrent origin fetches; try another proxy`);
      }
      originFetches++;
      const started = now();
      shared = fetcher(url).then((o) => {
        const entry = { bytes: o.bytes, contentType: o.contentType, serverFetchMs: now() - started };
        cache.set(url, entry);
        return entry;
      });
      inFlight.set(url, shared);
      // Failures are not cached: the next request tries the origin again.
      shared.finally(() => inFlight.delete(url)).catch(() => {});
    }
    const entry = await abortable(shared, opts.signal);
    return { ...entry, fromCache: false };
  }

  return {
    get,
    /** @returns {{ entries: number, bytes: number, maxBytes: number, originFetches: number, inFlight: number }} */
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize, maxBytes, originFetches, inFlight: inFlight.size }),
    /** @param {string} url */
    has: (url) => cache.has(url),
    clear: () => cache.clear(),
  };
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<T>}
 */
function abortable(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(codedError('ERR_ABORTED', 'request aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(codedError('ERR_ABORTED', 'request aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * One cache key per resource however the URL was spelled (case of scheme/host, default port).
 * @param {string} url
 */
function normalizeKey(url) {
  try {
    return new URL(url).href;
  } catch {
    return url; // the fetcher refuses it with ERR_BAD_URL
  }
}
