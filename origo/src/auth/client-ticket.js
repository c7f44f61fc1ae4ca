// Client tickets as Origo issues them: the format, key and lifetime are the proxy's ticket module
// (@mutp/proxy/tickets), which checks them; Origo adds only the token it derives from its secret.
import { signTicket, TICKET_TTL_MS } from '@mutp/proxy/tickets';
import { proxyToken } from './proxy-token.js';

export { TICKET_TTL_MS };

/**
 * Signs a ticket for one (client, proxy) pair.
 * @param {{ secret: string, clientId: string, proxyId: string, now: number, ttlMs?: number }} o  now in ms (Date.now)
 * @returns {{ ticket: string, expiresAt: number }}  expiresAt in ms since the epoch
 */
export function issueTicket({ secret, clientId, proxyId, now, ttlMs = TICKET_TTL_MS }) {
  const expiresAt = Math.floor(now + ttlMs);
  return { ticket: signTicket({ token: proxyToken(secret, proxyId), clientId, proxyId, expiresAt }), expiresAt };
}
