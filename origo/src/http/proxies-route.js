import { parseProxiesQuery } from './proxies-query.js';
import { sendError } from './send-error.js';

/**
 * GET /api/proxies?lat=&lon=&n= → `{ proxies: [{ id, url, location, uploadRateBps, activeSessions }] }`
 * @param {{ registry: import('../registry/proxy-registry.js').ProxyRegistry, random?: () => number }} deps
 * @returns {import('express').RequestHandler}
 */
export function proxiesRoute({ registry, random = Math.random }) {
  return (req, res) => {
    const q = parseProxiesQuery(/** @type {Record<string, unknown>} */ (req.query));
    if (!q.ok) return sendError(res, 400, 'ERR_BAD_QUERY', q.message);
    res.json({ proxies: registry.pick({ location: q.location, n: q.n, random }) });
  };
}
