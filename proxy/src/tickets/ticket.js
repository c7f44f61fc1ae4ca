// Client tickets, the one definition of their format (docs/origo-api.md "Tickets"): Origo signs
// "client C may use proxy P until time E"; the proxy checks it without knowing Origo's master
// secret. The MAC key is derived from the proxy's own token (HMAC(secret, proxyId)), which Origo
// can compute and the proxy already holds. Origo imports this module (@mutp/proxy/tickets).
// Wire format: `t1.<base64url(JSON {c, p, e})>.<base64url(HMAC-SHA256(ticketKey, "t1." + payload))>`.
// Parse at the edge: a ticket is untrusted text from the network; every field is checked.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { codedError } from '@mutp/common/errors';

/** Ticket lifetime, ms: long enough for one chunk download (seconds) plus retries, short enough that a leaked ticket is soon worthless. */
export const TICKET_TTL_MS = 120_000;

/** Accept a ticket this long after its expiry, ms: Origo's and the proxy's clocks may differ a little (NTP keeps them within seconds). */
export const TICKET_CLOCK_SKEW_MS = 30_000;

/** Refuse a ticket expiring later than now + this, ms: Origo issues TICKET_TTL_MS tickets; a far-future expiry is not one of ours. */
export const MAX_TICKET_LIFETIME_MS = TICKET_TTL_MS + TICKET_CLOCK_SKEW_MS;

/** Longest ticket accepted, characters: a 128-char client id and proxy id encode to ~450; refuse junk before decoding it. */
export const MAX_TICKET_CHARS = 1024;

/** Format tag: a future format gets a new tag instead of being misread. */
export const TICKET_VERSION = 't1';

/** Domain separation: the ticket key is not the token itself, so a MAC can never double as a token. */
const TICKET_KEY_LABEL = 'mutp-ticket-key-v1';
const TICKET_SHAPE = new RegExp(`^${TICKET_VERSION}\\.([A-Za-z0-9_-]{1,900})\\.([A-Za-z0-9_-]{43})$`);
// Origo's id rule: 1..128 of [A-Za-z0-9._:-].
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * @typedef {{ clientId: string, proxyId: string, expiresAt: number }} Ticket  expiresAt: ms since the epoch
 */

/**
 * The key that signs and checks one proxy's tickets: HMAC-SHA256(token, label), from its token alone.
 * @param {string} token  the proxy's token, lowercase hex
 * @returns {Buffer}
 */
function ticketKey(token) {
  return createHmac('sha256', token).update(TICKET_KEY_LABEL, 'utf8').digest();
}

/** @param {Buffer} key @param {string} payloadB64 @returns {Buffer} the MAC over the version and the encoded payload */
function ticketMac(key, payloadB64) {
  return createHmac('sha256', key).update(`${TICKET_VERSION}.${payloadB64}`, 'utf8').digest();
}

/**
 * Signs a ticket with the proxy's token (Origo derives the token from its secret).
 * @param {{ token: string } & Ticket} o
 * @returns {string}
 */
export function signTicket({ token, clientId, proxyId, expiresAt }) {
  const payloadB64 = Buffer.from(JSON.stringify({ c: clientId, p: proxyId, e: expiresAt }), 'utf8').toString('base64url');
  return `${TICKET_VERSION}.${payloadB64}.${ticketMac(ticketKey(token), payloadB64).toString('base64url')}`;
}

/**
 * A ticket checker for one proxy.
 * @param {{ proxyId: string, token: string }} o  the proxy's id and token (HMAC(ORIGO_PROXY_SECRET, id), hex)
 * @returns {(ticket: unknown, now: number) => Ticket}  throws ERR_TICKET_MISSING, ERR_TICKET_BAD,
 *   ERR_TICKET_WRONG_PROXY or ERR_TICKET_EXPIRED; `now` in ms (Date.now)
 */
export function createTicketVerifier({ proxyId, token }) {
  const key = ticketKey(token);
  return (ticket, now) => {
    if (ticket === undefined || ticket === null || ticket === '') throw codedError('ERR_TICKET_MISSING', 'a ticket from Origo is required (GET /api/proxies)');
    if (typeof ticket !== 'string' || ticket.length > MAX_TICKET_CHARS) throw codedError('ERR_TICKET_BAD', 'the ticket is malformed');
    const m = TICKET_SHAPE.exec(ticket);
    if (!m) throw codedError('ERR_TICKET_BAD', 'the ticket is malformed');
    const payload = parsePayload(m[1]);
    if (!payload) throw codedError('ERR_TICKET_BAD', 'the ticket payload is malformed');
    if (payload.proxyId !== proxyId) throw codedError('ERR_TICKET_WRONG_PROXY', `the ticket is for proxy ${payload.proxyId}, not this one`);
    const expected = ticketMac(key, m[1]);
    const given = Buffer.from(m[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw codedError('ERR_TICKET_BAD', 'the ticket signature is wrong');
    if (now > payload.expiresAt + TICKET_CLOCK_SKEW_MS) throw codedError('ERR_TICKET_EXPIRED', 'the ticket has expired; ask Origo for a new one');
    if (payload.expiresAt > now + MAX_TICKET_LIFETIME_MS) throw codedError('ERR_TICKET_BAD', 'the ticket expires too far in the future');
    return payload;
  };
}

/** @param {string} b64 @returns {Ticket | null} */
function parsePayload(b64) {
  let obj;
  try {
    obj = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
  const { c, p, e } = obj;
  if (typeof c !== 'string' || !ID_PATTERN.test(c) || typeof p !== 'string' || !ID_PATTERN.test(p)) return null;
  if (!Number.isSafeInteger(e) || e <= 0) return null;
  return { clientId: c, proxyId: p, expiresAt: e };
}
