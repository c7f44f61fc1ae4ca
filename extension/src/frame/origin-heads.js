// The origin's Content-Type and object size per URL, as the proxies relay them on GET/HEAD
// /fetch (the proxy answers with the origin's Content-Type and `Content-Range: bytes a-b/size`).
// The HTTP modes' own proxy responses fill it at no cost; for the MUTP modes, whose data channel
// carries only the requested bytes, a HEAD /fetch through one of the download's proxies asks,
// unless the type is known from a segment of the same name pattern (the same path but for its
// last number: the next segment of a stream) and no size is needed (no Range).

import { proxyEndpoint } from '@mutp/proxyclientlib';

const MAX_URLS = 2000; // segments of the streams playing now; the oldest are forgotten
export const HEAD_WAIT_MS = 300; // the first bytes wait this long at most for a MUTP download's head

/** @typedef {{type: string | null, size: number | null}} OriginHead */

/** A segment URL's name pattern: its path with the last run of digits before the extension wildcarded. @param {string} url */
export function namePattern(url) {
  try {
    const u = new URL(url);
    const ext = /\.[a-z][a-z0-9]{0,4}$/i.exec(u.pathname)?.[0] ?? ''; // .m4s, .mp4: not the segment number
    return `${u.origin}${u.pathname.slice(0, u.pathname.length - ext.length).replace(/\d+(?=\D*$)/, '#')}${ext}`;
  } catch {
    return url;
  }
}

export function createOriginHeads() {
  /** @type {Map<string, OriginHead>} */
  const heads = new Map();
  /** @type {Map<string, string>} Content-Type by name pattern */
  const types = new Map();

  /** @param {string} url @param {OriginHead} h */
  function remember(url, h) {
    if (h.type === null && h.size === null) return;
    heads.delete(url);
    if (heads.size >= MAX_URLS) heads.delete(/** @type {string} */ (heads.keys().next().value));
    heads.set(url, h);
    if (h.type !== null) {
      const key = namePattern(url);
      types.delete(key);
      if (types.size >= MAX_URLS) types.delete(/** @type {string} */ (types.keys().next().value));
      types.set(key, h.type);
    }
  }

  /** @param {Response} res @returns {OriginHead} */
  function readHead(res) {
    const type = res.headers.get('content-type');
    const cr = /\/(\d{1,15})\s*$/.exec(res.headers.get('content-range') ?? '');
    const len = res.status === 200 ? Number(res.headers.get('content-length') ?? NaN) : NaN;
    const size = cr ? Number(cr[1]) : Number.isSafeInteger(len) ? len : null;
    return { type: type && type.length <= 256 ? type : null, size };
  }

  /**
   * ProxyClientLib's fetch, watched: what a proxy's /fetch answered about its origin object.
   * @param {typeof fetch} f
   * @returns {typeof fetch}
   */
  function observing(f) {
    return async (input, init) => {
      const res = await f(input, init);
      try {
        const u = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
        // a digest list (`&digests=1`, the HTTP modes' integrity check) is the proxy's own format, not the origin's head
        const body = u.pathname.endsWith('/fetch') && !u.searchParams.has('digests');
        const origin = body ? u.searchParams.get('url') : null;
        if (origin && (res.status === 200 || res.status === 206)) remember(origin, readHead(res));
      } catch {
        // not a URL we can read: nothing learned
      }
      return res;
    };
  }

  /**
   * Ask one proxy for the head (HEAD /fetch); the proxy fetches the object once for both. With
   * the download's range the HEAD asks for it too: the proxy then fetches only that range from
   * the origin (not a whole single-file stream), the same fetch the download's bytes come from.
   * @param {typeof fetch} f
   * @param {{url: string, ticket?: string | null}} proxy
   * @param {string} url
   * @param {AbortSignal} signal
   * @param {{start: number, end: number} | null} [range]
   */
  async function ask(f, proxy, url, signal, range = null) {
    const u = proxyEndpoint(proxy.url, 'fetch');
    u.searchParams.set('url', url);
    if (proxy.ticket) u.searchParams.set('ticket', proxy.ticket);
    const headers = range ? { range: `bytes=${range.start}-${range.end}` } : undefined;
    const res = await f(u.href, { method: 'HEAD', signal, cache: 'no-store', headers });
    if (res.status === 200 || res.status === 206) remember(url, readHead(res));
    return heads.get(url) ?? null;
  }

  return {
    observing, ask,
    /** @param {string} url */
    get: (url) => heads.get(url) ?? null,
    /** What the page's response can say now: this URL's head, else the type of a segment with its name pattern. @param {string} url @returns {OriginHead} */
    best: (url) => heads.get(url) ?? { type: types.get(namePattern(url)) ?? null, size: null },
  };
}
