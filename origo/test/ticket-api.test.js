// Origo issues client tickets (issue 8 §1): GET /api/proxies carries one per proxy, bound to the
// client id; GET /api/tickets renews them for live proxies. Also: trust proxy off by default.
import assert from 'node:assert/strict';
import { createTicketVerifier } from '@mutp/proxy/ticket-verify';
import { proxyToken } from '../index.js';
import { TICKET_TTL_MS } from '../src/auth/client-ticket.js';
import { SECRET, startTestOrigo, connectGoodProxy } from './helpers.js';

const NOW = 1_800_000_000_000;
const status = (/** @type {string} */ id) => ({ proxyId: id, publicUrl: `http://127.0.0.1:1/${id}`, location: null, uploadRateBps: null, activeSessions: 0, bytesSent: 0, cpu: null });

describe('Origo: client tickets', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */ let origo;
  /** @type {import('socket.io-client').Socket[]} */ const sockets = [];

  before(async () => {
    origo = await startTestOrigo({ now: () => NOW });
    for (const id of ['p-1', 'p-2']) {
      const s = await connectGoodProxy(origo.url, id);
      s.emit('status', status(id));
      sockets.push(s);
    }
    for (let i = 0; i < 100; i++) {
      const body = await (await fetch(`${origo.url}/api/proxies`)).json();
      if (body.proxies.length === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  after(async () => {
    for (const s of sockets) s.close();
    await origo?.close();
  });

  it('GET /api/proxies gives each proxy a ticket that proxy (and only it) accepts, bound to the client id', async () => {
    const { proxies } = await (await fetch(`${origo.url}/api/proxies?clientId=client-7`)).json();
    assert.equal(proxies.length, 2);
    for (const p of proxies) {
      assert.equal(p.ticketExpiresAt, NOW + TICKET_TTL_MS);
      const verify = createTicketVerifier({ proxyId: p.id, token: proxyToken(SECRET, p.id) });
      assert.deepEqual(verify(p.ticket, NOW), { clientId: 'client-7', proxyId: p.id, expiresAt: NOW + TICKET_TTL_MS });
      const other = p.id === 'p-1' ? 'p-2' : 'p-1';
      assert.throws(() => createTicketVerifier({ proxyId: other, token: proxyToken(SECRET, other) })(p.ticket, NOW), { code: 'ERR_TICKET_WRONG_PROXY' });
    }
  });

  it('without clientId the tickets name "anonymous"; a malformed clientId is 400 ERR_BAD_QUERY', async () => {
    const { proxies } = await (await fetch(`${origo.url}/api/proxies?n=1`)).json();
    const verify = createTicketVerifier({ proxyId: proxies[0].id, token: proxyToken(SECRET, proxies[0].id) });
    assert.equal(verify(proxies[0].ticket, NOW).clientId, 'anonymous');
    for (const q of ['clientId=bad%20id', `clientId=${'x'.repeat(129)}`, 'clientId=a&clientId=b']) {
      const res = await fetch(`${origo.url}/api/proxies?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal((await res.json()).error.code, 'ERR_BAD_QUERY');
    }
  });

  it('GET /api/tickets renews tickets for live proxies only', async () => {
    const res = await fetch(`${origo.url}/api/tickets?clientId=c-1&ids=p-2,ghost`);
    assert.equal(res.status, 200);
    const { tickets } = await res.json();
    assert.deepEqual(tickets.map((/** @type {any} */ t) => t.proxyId), ['p-2']);
    const verify = createTicketVerifier({ proxyId: 'p-2', token: proxyToken(SECRET, 'p-2') });
    assert.equal(verify(tickets[0].ticket, NOW).clientId, 'c-1');
    for (const q of ['clientId=c', 'ids=', 'ids=bad%20id', `ids=${Array.from({ length: 65 }, (_, i) => `p${i}`).join(',')}`]) {
      const r = await fetch(`${origo.url}/api/tickets?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal((await r.json()).error.code, 'ERR_BAD_QUERY');
    }
  });
});

describe('Origo: trust proxy is off unless configured', () => {
  it('a client cannot dodge the rate limit with X-Forwarded-For', async () => {
    const origo = await startTestOrigo({ rateLimitPerMinute: 2 });
    try {
      for (let i = 0; i < 2; i++) assert.equal((await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status, 200);
      const res = await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': '198.51.100.99' } });
      assert.equal(res.status, 429);
      assert.equal((await res.json()).error.code, 'ERR_RATE_LIMITED');
    } finally {
      await origo.close();
    }
  });

  it('with trustProxy configured, the forwarded address is the key', async () => {
    const origo = await startTestOrigo({ rateLimitPerMinute: 1, trustProxy: 'loopback' });
    try {
      assert.equal((await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': '198.51.100.1' } })).status, 200);
      assert.equal((await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': '198.51.100.2' } })).status, 200);
      assert.equal((await fetch(`${origo.url}/api/proxies`, { headers: { 'x-forwarded-for': '198.51.100.2' } })).status, 429);
    } finally {
      await origo.close();
    }
  });
});
