// Next-object hints: a client names the object it will likely ask next (the next segment file of
// a stream it plays), so the proxy fetches it from the origin now and the request that follows
// finds it cached. Two ways in, one rule: `&next=…` on a `/fetch` (the HTTP modes) and a `hint`
// datagram after a MUTP request (rtc/mutp-session.js). Neither is answered: a refused URL is a
// warning and a count, and the request it came with is served all the same.

/**
 * @typedef {{ objects: { prefetch: (url: string) => boolean }, checkUrl: (url: string) => unknown, stats: { hintsRefused: number },
 *   logger: { warn: (msg: string, meta?: object) => void } }} HintDeps
 *   checkUrl: the origin fetcher's own check (scheme, address class, allowlist); throws a coded error;
 *   stats.hintsRefused: hints refused for their URL (/healthz)
 */

/**
 * @param {HintDeps} deps
 * @returns {(url: string) => boolean}  whether a fetch started (false: refused, held or on its way
 *   already, read-ahead off, or the origin slots are needed by clients)
 */
export function createNextHint({ objects, checkUrl, logger, stats }) {
  return (url) => {
    try {
      checkUrl(url);
    } catch (err) {
      stats.hintsRefused++;
      logger.warn('next-object hint refused', { code: /** @type {{ code?: string }} */ (err).code });
      return false;
    }
    return objects.prefetch(url);
  };
}
