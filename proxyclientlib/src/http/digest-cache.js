// Proxies' digest lists kept per proxy and object URL for a short while: the next download of the
// same object (another byte range of one file, as HLS EXT-X-BYTERANGE and DASH SegmentBase streams
// ask) votes at once instead of waiting for the lists again. Each cached list still counts only
// as its own proxy's vote, and a list whose proxy the vote outvotes is forgotten with its URL.
// A proxy's list may cover only the blocks of one range (a span list): it is used for a download
// whose blocks it covers, and the next list of that proxy and URL replaces it.
import { listCovers } from '@mutp/protocol/http';

export const DIGEST_CACHE_TTL_MS = 30_000; // a media object does not change while it plays; short, as an origin may replace a file
export const DIGEST_CACHE_ENTRIES = 256; // lists of 8-byte digests: a 100 MB object's is ~12 KiB

/** @param {{now?: () => number}} [o] */
export function createDigestCache({ now = () => performance.now() } = {}) {
  /** @type {Map<string, {at: number, list: import('@mutp/protocol/http').DigestList}>} */
  const kept = new Map();
  const key = (/** @type {string} */ proxyUrl, /** @type {string} */ url) => `${proxyUrl}\n${url}`;
  /** The kept list of this proxy and URL, unless it aged out (then forgotten). @param {string} proxyUrl @param {string} url */
  const fresh = (proxyUrl, url) => {
    const k = key(proxyUrl, url);
    const e = kept.get(k);
    if (!e) return null;
    if (now() - e.at <= DIGEST_CACHE_TTL_MS) return e.list;
    kept.delete(k);
    return null;
  };
  return {
    /**
     * The kept list of this proxy and URL when it covers `span`.
     * @param {string} proxyUrl @param {string} url @param {import('@mutp/protocol/http').BlockSpan} span
     */
    get(proxyUrl, url, span) {
      const list = fresh(proxyUrl, url);
      return list && listCovers(list, span) ? list : null;
    },
    /** @param {string} proxyUrl @param {string} url @param {import('@mutp/protocol/http').DigestList} list */
    set(proxyUrl, url, list) {
      const k = key(proxyUrl, url);
      kept.delete(k);
      kept.set(k, { at: now(), list });
      if (kept.size > DIGEST_CACHE_ENTRIES) kept.delete(/** @type {string} */ (kept.keys().next().value));
    },
    /** Is a list of this proxy and URL kept (the file is being read range after range)? @param {string} proxyUrl @param {string} url */
    keeps: (proxyUrl, url) => fresh(proxyUrl, url) !== null,
    /** Every proxy's list of this object (a vote found a liar, or the object changed). @param {string} url */
    forget(url) {
      for (const k of [...kept.keys()]) if (k.endsWith(`\n${url}`)) kept.delete(k);
    },
    size: () => kept.size,
  };
}

/**
 * Runs an HTTP-mode download; when lists kept from earlier downloads voted in it and it failed on
 * integrity before handing out a byte, runs it once more without them. The origin may have replaced
 * the object since (its copies at the proxies went stale and were fetched again), and the old
 * lists then make every proxy that serves the new bytes look like a liar.
 * @template {{url: string, proxies: {url: string}[], signal?: AbortSignal, onProgress?: (p: {netBytes: number}) => void}} A
 * @template R
 * @param {(args: A) => Promise<R>} run @param {A} args
 * @param {ReturnType<typeof createDigestCache> | null} cache @param {{warn: (...a: unknown[]) => void}} logger
 * @returns {Promise<R>}
 */
export async function withCurrentLists(run, args, cache, logger) {
  const kept = cache !== null && args.proxies.some((p) => cache.keeps(p.url, args.url));
  let handedOut = 0;
  const onProgress = (/** @type {{netBytes: number}} */ p) => {
    handedOut = Math.max(handedOut, p.netBytes);
    args.onProgress?.(p);
  };
  try {
    return await run({ ...args, onProgress });
  } catch (err) {
    const e = /** @type {{code?: string, perProxy?: {error: {code: string} | null}[]}} */ (err);
    // what kept lists of an older object cause: no majority, or proxies named liars
    const onIntegrity = e.code === 'ERR_INTEGRITY_UNRESOLVED'
      || (e.code === 'ERR_ALL_PROXIES_FAILED' && (e.perProxy ?? []).some((p) => p.error?.code === 'ERR_INTEGRITY'));
    if (!kept || handedOut > 0 || args.signal?.aborted || !onIntegrity) throw err;
    /** @type {NonNullable<typeof cache>} */ (cache).forget(args.url);
    logger.warn(`http: the lists kept for ${args.url} disagree with the proxies' bytes (the object changed?); asking again without them`);
    return run({ ...args, onProgress: args.onProgress });
  }
}
