import { issueTicket } from '../auth/client-ticket.js';
import { parseProxiesQuery, parseTicketsQuery } from './proxies-query.js';
import { sendError } from './send-error.js';

/**
 * @typedef {{ proxySecret: string, now?: () => number, ticketQuota?: ReturnType<typeof import('./address-quota.js').createAddressQuota> | null }} TicketDeps
 *   now: ms clock (Date.now); ticketQuota: tickets per client address per window (none: unbounded)
 */

/** Refuses the request when issuing `count` tickets would pass the address's quota. @returns {boolean} true when refused */
function overTicketQuota(/** @type {TicketDeps['ticketQuota']} */ quota, /** @type {import('express').Request} */ req, /** @type {import('express').Response} */ res, /** @type {number} */ count) {
  if (!quota || quota.take(String(req.ip), count)) return false;
  sendError(res, 429, 'ERR_TICKET_RATE', 'too many tickets for this address this minute; slow down');
  return true;
}

/**
 * GET /api/proxies?lat=&lon=&n=&clientId= → `{ proxies: [{ id, url, location, uploadRateBps, activeSessions, ticket, ticketExpiresAt }] }`
 * Each entry carries a ticket for that proxy, bound to the client id (docs/origo-api.md "Tickets").
 * @param {{ registry: import('../registry/proxy-registry.js').ProxyRegistry, random?: () => number } & TicketDeps} deps
 * @returns {import('express').RequestHandler}
 */
export function proxiesRoute({ registry, random = Math.random, proxySecret, now = Date.now, ticketQuota = null }) {
  return (req, res) => {
    const q = parseProxiesQuery(/** @type {Record<string, unknown>} */ (req.query));
    if (!q.ok) return sendError(res, 400, 'ERR_BAD_QUERY', q.message);
    const t = now();
    const picked = registry.pick({ location: q.location, n: q.n, random });
    if (overTicketQuota(ticketQuota, req, res, picked.length)) return;
    const proxies = picked.map((p) => {
      const { ticket, expiresAt } = issueTicket({ secret: proxySecret, clientId: /** @type {string} */ (q.clientId), proxyId: p.id, now: t });
      return { ...p, ticket, ticketExpiresAt: expiresAt };
    });
    res.json({ proxies });
  };
}

/**
 * GET /api/tickets?clientId=&ids=a,b → `{ tickets: [{ proxyId, ticket, expiresAt }] }`: fresh tickets for
 * proxies a client already knows (a long download, or proxies picked by the caller). Only live proxies
 * Origo offers get one; unknown ids are left out.
 * @param {{ registry: import('../registry/proxy-registry.js').ProxyRegistry } & TicketDeps} deps
 * @returns {import('express').RequestHandler}
 */
export function ticketsRoute({ registry, proxySecret, now = Date.now, ticketQuota = null }) {
  return (req, res) => {
    const q = parseTicketsQuery(/** @type {Record<string, unknown>} */ (req.query));
    if (!q.ok) return sendError(res, 400, 'ERR_BAD_QUERY', q.message);
    const live = new Set(registry.offered().map((p) => p.id));
    const t = now();
    const ids = /** @type {string[]} */ (q.ids).filter((id) => live.has(id));
    if (overTicketQuota(ticketQuota, req, res, ids.length)) return;
    const tickets = ids.map((proxyId) => {
      const { ticket, expiresAt } = issueTicket({ secret: proxySecret, clientId: /** @type {string} */ (q.clientId), proxyId, now: t });
      return { proxyId, ticket, expiresAt };
    });
    res.json({ tickets });
  };
}
