// Next-object hints: a client names the object it will likely ask next (the next segment file of
// a stream it plays), so the proxy fetches it from the origin now and the request that follows
// finds it cached. Two ways in, one rule: `GET /prefetch?url=…` (the MUTP modes, whose requests
// travel on the data channel) and `&next=…` on a `/fetch` (the HTTP modes: no extra request).
import { sendError } from './error-status.js';

/**
 * @typedef {{ objects: { prefetch: (url: string) => boolean }, checkUrl: (url: string) => unknown, stats: { hintsRefused: number } }} HintDeps
 *   checkUrl: the origin fetcher's own check (scheme, address class, allowlist); throws a coded error;
 *   stats.hintsRefused: hints refused for their URL (/healthz)
 */

/**
 * GET /prefetch?url=…: answers at once, 202 { started }; started is false when the object is held
 * or on its way already, read-ahead is off, or the origin slots are needed by clients. A refused
 * URL gets its code here, not later in a fetch nobody waits for.
 * @param {HintDeps} deps
 * @returns {import('express').RequestHandler}
 */
export function createPrefetchRoute({ objects, checkUrl, stats }) {
  return (req, res) => {
    const url = req.query.url;
    if (typeof url !== 'string' || url === '') return sendError(res, { code: 'ERR_BAD_QUERY', message: 'url is required, once' });
    try {
      checkUrl(url);
    } catch (err) {
      stats.hintsRefused++;
      return sendError(res, /** @type {{ code?: string, message?: string }} */ (err));
    }
    res.status(202).json({ started: objects.prefetch(url) });
  };
}

/**
 * The `next` of a /fetch: taken like a /prefetch, but a refused one only warns (the fetch it came
 * with is served all the same).
 * @param {HintDeps & { logger: { warn: (msg: string, meta?: object) => void } }} deps
 * @returns {(url: string) => void}
 */
export function createNextHint({ objects, checkUrl, logger, stats }) {
  return (url) => {
    try {
      checkUrl(url);
    } catch (err) {
      stats.hintsRefused++;
      logger.warn('next-object hint refused', { code: /** @type {{ code?: string }} */ (err).code });
      return;
    }
    objects.prefetch(url);
  };
}
