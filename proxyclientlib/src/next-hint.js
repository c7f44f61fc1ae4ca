// Tells a download's proxies which object the caller will likely ask next (the next segment file
// of a stream it plays: GET /prefetch?url=…), so each fetches it from the origin while this one
// downloads and the next request finds it cached. A hint is best effort: nobody waits for its
// answer, and a proxy that refuses it or does not know it (an older proxy: 404) changes nothing.

/**
 * @param {object} o
 * @param {{ url: string }[]} o.proxies
 * @param {string} o.next  the object's URL (http/https, checked by the caller)
 * @param {typeof fetch} o.fetch  the download's proxy access (it attaches each proxy's ticket)
 * @param {{ warn: (...a: unknown[]) => void }} o.logger
 * @returns {Promise<number>} how many proxies took the hint (202): for tests, never awaited by a download
 */
export function hintNext({ proxies, next, fetch, logger }) {
  return Promise.all(proxies.map(async (p) => {
    const base = p.url.endsWith('/') ? p.url : `${p.url}/`;
    try {
      const res = await fetch(`${base}prefetch?url=${encodeURIComponent(next)}`);
      await res.body?.cancel().catch(() => {});
      return res.status === 202 ? 1 : 0;
    } catch (err) {
      logger.warn(`proxy ${p.url}: next-object hint failed: ${/** @type {Error} */ (err)?.message ?? err}`);
      return 0;
    }
  })).then((took) => took.reduce((a, b) => a + b, 0));
}
