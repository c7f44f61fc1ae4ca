import { LRUCache } from 'lru-cache';
import { codedError } from '@mutp/common/errors';

/**
 * @typedef {{ start: number, end: number }} ByteRange  end inclusive
 * @typedef {{ bytes: Uint8Array, contentType: string, serverFetchMs: number, range: ByteRange | null, total: number | null }} Entry
 *   range: the bytes are this range of the object, null: the whole object; total: the object's size (null: unknown)
 * @typedef {Entry & { fromCache: boolean }} StoredObject
 * @typedef {(url: string, opts?: { signal?: AbortSignal, range?: ByteRange | null }) =>
 *   Promise<{ bytes: Uint8Array, contentType: string, finalUrl?: string, range?: ByteRange | null, total?: number | null }>} Fetcher
 *   range: ask the origin for these bytes only; a fetcher (or origin) that answers the whole object says range null
 */

/**
 * The proxy's copy of origin objects: a byte-bounded LRU cache plus single-flight, so that
 * clients and modes asking for one URL at once share one origin download (each
 * requested URL is fetched once).
 * A caller that needs only a range (a download of a byte range, a plain HEAD/GET /fetch with
 * one) may ask for it: the origin is then asked for those bytes only (a range of a long
 * single-file stream, not the whole file), kept under the URL and the range, unless the whole
 * object, or a cached range holding the asked one, is there already or the same is on its way.
 * A cache miss past `maxOriginFetches` concurrent origin downloads is refused (503 ERR_PROXY_BUSY)
 * instead of queued: the client has other proxies, and a queue would only hide the overload.
 * @param {{ fetcher: Fetcher, maxBytes: number, now?: () => number, maxOriginFetches?: number }} opts
 */
export function createObjectStore({ fetcher, maxBytes, now = () => performance.now(), maxOriginFetches = Infinity }) {
  /** @type {LRUCache<string, Entry>} */
  const cache = new LRUCache({
    maxSize: Math.max(1, maxBytes),
    // A 0-byte object still takes a slot; lru-cache needs a positive size.
    sizeCalculation: (v) => Math.max(1, v.bytes.byteLength),
    dispose: (_v, key) => forgetRange(key),
  });
  /** url → the cache keys of its ranged entries */
  /** @type {Map<string, Set<string>>} */
  const rangesOf = new Map();
  const urlOfKey = (/** @type {string} */ key) => key.slice(0, key.lastIndexOf(' bytes='));
  /** @param {string} key */
  function forgetRange(key) {
    if (!key.includes(' bytes=')) return;
    const keys = rangesOf.get(urlOfKey(key));
    keys?.delete(key);
    if (keys?.size === 0) rangesOf.delete(urlOfKey(key));
  }
  /**
   * A cached range of `url` that holds `range` (up to the object's end).
   * @param {string} url @param {ByteRange} range
   */
  function cachedRangeHolding(url, range) {
    for (const key of rangesOf.get(url) ?? []) {
      const e = cache.get(key);
      if (!e?.range) continue;
      const reachesEnd = range.end <= e.range.end || (e.total !== null && e.range.end === e.total - 1);
      if (range.start >= e.range.start && reachesEnd) return e;
    }
    return undefined;
  }
  /** @type {Map<string, Promise<Entry>>} */
  const inFlight = new Map();
  let originFetches = 0;

  /**
   * @param {string} url
   * @param {{ signal?: AbortSignal, range?: ByteRange | null }} [opts] signal aborts this caller's
   *   wait, not the shared fetch; range: only these bytes are needed
   * @returns {Promise<StoredObject>}  the whole object, or (range asked) a range of it that holds
   *   the asked one (entry.range says which)
   */
  async function get(url, opts = {}) {
    url = normalizeKey(url);
    const range = opts.range ?? null;
    const whole = cache.get(url);
    if (whole) return { ...whole, fromCache: true };
    const key = range ? `${url} bytes=${range.start}-${range.end}` : url;
    const hit = range ? cache.get(key) ?? cachedRangeHolding(url, range) : undefined;
    if (hit) return { ...hit, fromCache: true };
    let shared = inFlight.get(url) ?? inFlight.get(key);
    if (!shared) {
      if (inFlight.size >= maxOriginFetches) {
        throw codedError('ERR_PROXY_BUSY', `more than ${maxOriginFetches} concurrent origin fetches; try another proxy`);
      }
      originFetches++;
      const started = now();
      shared = fetcher(url, range ? { range } : undefined).then((o) => {
        const part = o.range ?? null;
        const entry = { bytes: o.bytes, contentType: o.contentType, serverFetchMs: now() - started, range: part, total: o.total ?? (part ? null : o.bytes.byteLength) };
        // an origin that ignored the range sent the whole object: kept as such
        cache.set(part ? key : url, entry);
        if (part && cache.has(key)) rangesOf.set(url, (rangesOf.get(url) ?? new Set()).add(key));
        return entry;
      });
      inFlight.set(key, shared);
      // Failures are not cached: the next request tries the origin again.
      shared.finally(() => inFlight.delete(key)).catch(() => {});
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
