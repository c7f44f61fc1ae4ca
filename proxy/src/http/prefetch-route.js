// GET /prefetch?url=… — a client names the object it will likely ask next (the next segment file of
// a stream it plays), so the proxy fetches it from the origin now and the request that follows
// finds it cached. Answers at once, 202 { started }: started is false when the object is held or
// on its way already, read-ahead is off, or the origin slots are needed by clients.
import { sendError } from './error-status.js';

/**
 * @param {{ objects: { prefetch: (url: string) => boolean }, checkUrl: (url: string) => unknown }} deps
 *   checkUrl: the origin fetcher's own check (scheme, address class, allowlist); throws a coded error
 * @returns {import('express').RequestHandler}
 */
export function createPrefetchRoute({ objects, checkUrl }) {
  return (req, res) => {
    const url = req.query.url;
    if (typeof url !== 'string' || url === '') return sendError(res, { code: 'ERR_BAD_QUERY', message: 'url is required, once' });
    try {
      checkUrl(url); // refused here with its code, not later in a fetch nobody waits for
    } catch (err) {
      return sendError(res, /** @type {{ code?: string, message?: string }} */ (err));
    }
    res.status(202).json({ started: objects.prefetch(url) });
  };
}
