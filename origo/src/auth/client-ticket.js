// Client tickets (issue 8 §1): Origo signs "client C may use proxy P until time E"; the proxy checks
// it without knowing Origo's master secret. The MAC key is derived from the proxy's own token
// (HMAC(secret, proxyId)), which Origo can compute and the proxy already holds.
// Wire format (docs/origo-api.md "Tickets"): `t1.<base64url(JSON {c, p, e})>.<base64url(HMAC-SHA256)>`.
import { createHmac } from 'node:crypto';
import { proxyToken } from './proxy-token.js';

/** Ticket lifetime, ms: long enough for one chunk download (seconds) plus retries, short enough that a leaked ticket is soon worthless. */
export const TICKET_TTL_MS = 120_000;

/** Format tag: a future format gets a new tag instead of being misread. */
export const TICKET_VERSION = 't1';

/** Domain separation: the ticket key is not the token itself, so a MAC can never double as a token. */
const TICKET_KEY_LABEL = 'mutp-ticket-key-v1';

/**
 * The key a proxy uses to check tickets: HMAC-SHA256(token, label), from its token alone.
 * @param {string} token  the proxy's token, lowercase hex
 * @returns {Buffer}
 */
export function ticketKeyFromToken(token) {
  return createHmac('sha256', token).update(TICKET_KEY_LABEL, 'utf8').digest();
}

/**
 * @param {Buffer} key @param {string} payloadB64
 * @returns {string} base64url MAC over the version and the encoded payload
 */
export function ticketMac(key, payloadB64) {
  return createHmac('sha256', key).update(`${TICKET_VERSION}.${payloadB64}`, 'utf8').digest('base64url');
}

/**
 * Signs a ticket for one (client, proxy) pair.
 * @param {{ secret: string, clientId: string, proxyId: string, now: number, ttlMs?: number }} o  now in ms (Date.now)
 * @returns {{ ticket: string, expiresAt: number }}  expiresAt in ms since the epoch
 */
export function issueTicket({ secret, clientId, proxyId, now, ttlMs = TICKET_TTL_MS }) {
  const expiresAt = Math.floor(now + ttlMs);
  const payloadB64 = Buffer.from(JSON.stringify({ c: clientId, p: proxyId, e: expiresAt }), 'utf8').toString('base64url');
  const key = ticketKeyFromToken(proxyToken(secret, proxyId));
  return { ticket: `${TICKET_VERSION}.${payloadB64}.${ticketMac(key, payloadB64)}`, expiresAt };
}
