// ProxyClientLib runs in web pages and extension frames, so every origin may call a proxy.
// Exposed: Content-Range and X-MUTP-Share for Range-split HTTP, the X-MUTP-* headers for the stats record and the digest vote,
// Server-Timing for the record's time breakdown.
const EXPOSED_HEADERS = 'Content-Range, Content-Length, Accept-Ranges, X-MUTP-Server-Fetch-Ms, X-MUTP-Cache, X-MUTP-Proxy-Id, X-MUTP-Digests, X-MUTP-Share, Server-Timing';
// Browsers cache the preflight for this long (seconds).
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * @param {import('express').Request} req
 * @param {import('express').Response} res
 * @param {import('express').NextFunction} next
 */
export function cors(req, res, next) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Range, Content-Type, X-MUTP-Ticket');
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    res.status(204).end();
    return;
  }
  next();
}
