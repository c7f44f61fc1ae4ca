// Tickets: Origo signs them (origo/src/auth/client-ticket.js), the proxy checks them
// with a key derived from its own token. Each bad ticket is refused with its own code.
import assert from 'node:assert/strict';
import { issueTicket, TICKET_TTL_MS } from '@mutp/origo/client-ticket';
import { proxyToken } from '@mutp/origo';
import { createTicketVerifier, TICKET_CLOCK_SKEW_MS, MAX_TICKET_CHARS } from '../src/tickets/ticket.js';

const SECRET = 'ticket-test-secret-0123456789';
const NOW = 1_800_000_000_000;
const verifierFor = (/** @type {string} */ id) => createTicketVerifier({ proxyId: id, token: proxyToken(SECRET, id) });
const ticketFor = (/** @type {string} */ proxyId, now = NOW, clientId = 'client-1') => issueTicket({ secret: SECRET, clientId, proxyId, now }).ticket;

describe('client tickets: verification', () => {
  const verify = verifierFor('proxy-a');

  it('accepts a ticket Origo issued for this proxy, and returns its fields', () => {
    assert.deepEqual(verify(ticketFor('proxy-a'), NOW), { clientId: 'client-1', proxyId: 'proxy-a', expiresAt: NOW + TICKET_TTL_MS });
  });

  it('accepts within the clock-skew tolerance after expiry, refuses after it (ERR_TICKET_EXPIRED)', () => {
    const t = ticketFor('proxy-a');
    assert.equal(verify(t, NOW + TICKET_TTL_MS + TICKET_CLOCK_SKEW_MS).proxyId, 'proxy-a');
    assert.throws(() => verify(t, NOW + TICKET_TTL_MS + TICKET_CLOCK_SKEW_MS + 1), { code: 'ERR_TICKET_EXPIRED' });
    // a replay long after expiry is the same refusal
    assert.throws(() => verify(t, NOW + 24 * 3600_000), { code: 'ERR_TICKET_EXPIRED' });
  });

  it('refuses a ticket for another proxy (ERR_TICKET_WRONG_PROXY)', () => {
    assert.throws(() => verify(ticketFor('proxy-b'), NOW), { code: 'ERR_TICKET_WRONG_PROXY' });
  });

  it('refuses forged tickets (ERR_TICKET_BAD)', () => {
    const good = ticketFor('proxy-a');
    const [v, payload, mac] = good.split('.');
    const flip = (/** @type {string} */ s) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    // a changed MAC
    assert.throws(() => verify(`${v}.${payload}.${flip(mac)}`, NOW), { code: 'ERR_TICKET_BAD' });
    // a longer expiry, re-encoded, with the old MAC
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const extended = Buffer.from(JSON.stringify({ ...body, e: body.e + 60_000 })).toString('base64url');
    assert.throws(() => verify(`${v}.${extended}.${mac}`, NOW), { code: 'ERR_TICKET_BAD' });
    // another client id with the old MAC
    const other = Buffer.from(JSON.stringify({ ...body, c: 'client-2' })).toString('base64url');
    assert.throws(() => verify(`${v}.${other}.${mac}`, NOW), { code: 'ERR_TICKET_BAD' });
    // signed with the wrong secret
    const wrong = issueTicket({ secret: 'another-secret-0123456789', clientId: 'c', proxyId: 'proxy-a', now: NOW }).ticket;
    assert.throws(() => verify(wrong, NOW), { code: 'ERR_TICKET_BAD' });
    // signed with the proxy's token directly (not the derived ticket key)
    assert.throws(() => verifierFor('proxy-a')(good.replace(/\.[^.]+$/, `.${'A'.repeat(43)}`), NOW), { code: 'ERR_TICKET_BAD' });
  });

  it('refuses a ticket expiring too far in the future (ERR_TICKET_BAD), even when correctly signed', () => {
    const far = issueTicket({ secret: SECRET, clientId: 'c', proxyId: 'proxy-a', now: NOW, ttlMs: 3600_000 }).ticket;
    assert.throws(() => verify(far, NOW), { code: 'ERR_TICKET_BAD' });
  });

  it('refuses a missing ticket (ERR_TICKET_MISSING) and malformed ones (ERR_TICKET_BAD)', () => {
    for (const none of [undefined, null, '']) assert.throws(() => verify(none, NOW), { code: 'ERR_TICKET_MISSING' });
    const junk = [42, {}, ['t1.a.b'], 'x', 't1..', 't2.e30.' + 'A'.repeat(43), 't1.e30.' + 'A'.repeat(43), 't1.!!!.' + 'A'.repeat(43),
      `t1.${Buffer.from('[1,2]').toString('base64url')}.${'A'.repeat(43)}`,
      `t1.${Buffer.from('{"c":"bad id","p":"proxy-a","e":1}').toString('base64url')}.${'A'.repeat(43)}`,
      `t1.${Buffer.from('{"c":"c","p":"proxy-a","e":"1"}').toString('base64url')}.${'A'.repeat(43)}`,
      'A'.repeat(MAX_TICKET_CHARS + 1)];
    for (const j of junk) assert.throws(() => verify(j, NOW), { code: 'ERR_TICKET_BAD' }, JSON.stringify(j).slice(0, 80));
  });
});
