// Checks an Origo client ticket (docs/origo-api.md "Tickets"): `t1.<base64url JSON {c, p, e}>.<base64url MAC>`.
// The MAC key is derived from this proxy's token, so the proxy never holds Origo's master secret.
// Parse at the edge: the ticket is untrusted text from the network; every field is checked.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { codedError } from '@mutp/common/errors';

/** Accept a ticket this long after its expiry, ms: Origo's and the proxy's clocks may differ a little (NTP keeps them within seconds). */
export const TICKET_CLOCK_SKEW_MS = 30_000;

/** Refuse a ticket expiring later than now + this, ms: Origo issues 120 s tickets; a far-future expiry is not one of ours. */
export const MAX_TICKET_LIFETIME_MS = 120_000 + TICKET_CLOCK_SKEW_MS;

/** Longest ticket accepted, characters: a 128-char client id and proxy id encode to ~450; refuse junk before decoding it. */
export const MAX_TICKET_CHARS = 1024;

const TICKET_VERSION = 't1';
const TICKET_KEY_LABEL = 'mutp-ticket-key-v1';
const TICKET_SHAPE = /^t1\.([A-Za-z0-9_-]{1,900})\.([A-Za-z0-9_-]{43})$/;
// Origo's id rule: 1..128 of [A-Za-z0-9._:-].
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * @typedef {{ clientId: string, proxyId: string, expiresAt: number }} Ticket
 */

/**
 * A ticket checker for one proxy.
 * @param {{ proxyId: string, token: string }} o  the proxy's id and token (HMAC(ORIGO_PROXY_SECRET, id), hex)
 * @returns {(ticket: unknown, now: number) => Ticket}  throws ERR_TICKET_MISSING, ERR_TICKET_BAD,
 *   ERR_TICKET_WRONG_PROXY or ERR_TICKET_EXPIRED; `now` in ms (Date.now)
 */
export function createTicketVerifier({ proxyId, token }) {
  const key = createHmac('sha256', token).update(TICKET_KEY_LABEL, 'utf8').digest();
  return (ticket, now) => {
    if (ticket === undefined || ticket === null || ticket === '') throw codedError('ERR_TICKET_MISSING', 'a ticket from Origo is required (GET /api/proxies)');
    if (typeof ticket !== 'string' || ticket.length > MAX_TICKET_CHARS) throw codedError('ERR_TICKET_BAD', 'the ticket is malformed');
    const m = TICKET_SHAPE.exec(ticket);
    if (!m) throw codedError('ERR_TICKET_BAD', 'the ticket is malformed');
    const payload = parsePayload(m[1]);
    if (!payload) throw codedError('ERR_TICKET_BAD', 'the ticket payload is malformed');
    if (payload.proxyId !== proxyId) throw codedError('ERR_TICKET_WRONG_PROXY', `the ticket is for proxy ${payload.proxyId}, not this one`);
    const expected = createHmac('sha256', key).update(`${TICKET_VERSION}.${m[1]}`, 'utf8').digest();
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
