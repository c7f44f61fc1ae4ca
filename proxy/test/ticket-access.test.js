// A proxy with requireTickets on serves GET /fetch and POST /rtc/offer only with a valid Origo
// ticket; each bad ticket is refused with its code, before any cache, origin or WebRTC work.
// With requireTickets off, no ticket is needed.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { issueTicket } from '@mutp/origo/client-ticket';
import { proxyToken } from '@mutp/origo';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { createProxyAccess } from '@mutp/proxyclientlib/proxy-access';
import { startProxy } from '../index.js';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';

const SECRET = 'ticket-access-secret-0123456789';
const ID = 'ticket-proxy';
const SIZE = 100_003;
const rtcConfig = { bindAddress: '127.0.0.1' };

/** @param {string} proxyId @param {number} [now] */
const ticketFor = (proxyId, now = Date.now()) => issueTicket({ secret: SECRET, clientId: 'client-1', proxyId, now }).ticket;

/**
 * The refused ticket cases: [name, ticket, status, code].
 * @returns {[string, string | undefined, number, string][]}
 */
function badTickets() {
  const good = ticketFor(ID);
  return [
    ['missing', undefined, 401, 'ERR_TICKET_MISSING'],
    // a changed character well inside the MAC (the last one carries bits base64url decoding ignores)
    ['forged', good.slice(0, -10) + (good.at(-10) === 'A' ? 'B' : 'A') + good.slice(-9), 403, 'ERR_TICKET_BAD'],
    ['expired', ticketFor(ID, Date.now() - 10 * 60_000), 401, 'ERR_TICKET_EXPIRED'],
    ['for another proxy', ticketFor('other-proxy'), 403, 'ERR_TICKET_WRONG_PROXY'],
  ];
}

describe('proxy: ticket checks on /fetch and /rtc/offer', function () {
  const data = testBytes(SIZE);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let open;
  /** @type {ReturnType<typeof captureLogger>} */ let log;

  before(async () => {
    origin = await startOrigin((_req, res) => res.writeHead(200, { 'content-type': 'video/webm' }).end(data));
    log = captureLogger();
    const common = { host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`] };
    proxy = await startProxy({ ...common, id: ID, token: proxyToken(SECRET, ID), requireTickets: true, logger: log.logger });
    open = await startProxy({ ...common, id: 'open-proxy', logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await open?.close();
    await origin?.close();
  });

  const fetchUrl = (/** @type {string} */ base) => `${base}/fetch?url=${encodeURIComponent(`${origin.url}/v.webm`)}`;

  it('refuses /fetch with a missing, forged, expired or wrong-proxy ticket, each with its code, and logs it', async () => {
    for (const [name, ticket, status, code] of badTickets()) {
      const u = fetchUrl(proxy.url) + (ticket ? `&ticket=${encodeURIComponent(ticket)}` : '');
      const res = await fetch(u);
      assert.equal(res.status, status, name);
      assert.equal((await res.json()).error.code, code, name);
    }
    assert.equal(origin.hits(), 0, 'no refused request reached the origin');
    assert.ok(log.lines.some((l) => l.level === 'warn' && /bad ticket/.test(l.msg)));
  });

  it('serves /fetch byte-exact with a valid ticket, as a query parameter or the X-MUTP-Ticket header', async () => {
    const q = await fetch(`${fetchUrl(proxy.url)}&ticket=${encodeURIComponent(ticketFor(ID))}`);
    assert.equal(q.status, 200);
    assert.deepEqual(new Uint8Array(await q.arrayBuffer()), new Uint8Array(data));
    const h = await fetch(fetchUrl(proxy.url), { headers: { 'x-mutp-ticket': ticketFor(ID), range: 'bytes=10-19' } });
    assert.equal(h.status, 206);
    assert.deepEqual(new Uint8Array(await h.arrayBuffer()), new Uint8Array(data.subarray(10, 20)));
  });

  it('refuses /rtc/offer with a missing, forged, expired or wrong-proxy ticket before any peer connection', async () => {
    for (const [name, ticket, status, code] of badTickets()) {
      const res = await fetch(`${proxy.url}/rtc/offer`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n', ...(ticket ? { ticket } : {}) }),
      });
      assert.equal(res.status, status, name);
      assert.equal((await res.json()).error.code, code, name);
    }
  });

  it('opens a WebRTC session with a valid ticket (attached by the client library)', async () => {
    const access = createProxyAccess({ proxies: [{ id: ID, url: proxy.url, ticket: ticketFor(ID) }], fetch, logger: console });
    const peer = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig, fetch: access.fetch });
    assert.equal(peer.channel.readyState, 'open');
    peer.close();
  });

  it('a refused ticket of each kind is mended by one fresh ticket from Origo: /fetch byte-exact, a WebRTC session opens', async () => {
    for (const [name, ticket] of badTickets()) {
      /** @type {string[][]} */
      const asked = [];
      const renewTickets = async (/** @type {string[]} */ ids) => { asked.push(ids); return new Map([[ID, ticketFor(ID)]]); };
      const access = createProxyAccess({ proxies: [{ id: ID, url: proxy.url, ticket }], fetch, logger: { warn() {} }, renewTickets });
      const [a, b] = await Promise.all([access.fetch(fetchUrl(proxy.url)), access.fetch(fetchUrl(proxy.url))]);
      assert.equal(a.status, 200, name);
      assert.deepEqual(new Uint8Array(await a.arrayBuffer()), new Uint8Array(data), name);
      assert.equal(b.status, 200, name);
      await b.body?.cancel();
      const peer = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig, fetch: access.fetch });
      assert.equal(peer.channel.readyState, 'open', name);
      peer.close();
      assert.deepEqual(asked, [[ID]], `${name}: Origo asked once`);
    }
  });

  it('a fresh ticket refused again, or none from Origo, leaves the refusal to the caller', async () => {
    const stale = ticketFor(ID, Date.now() - 10 * 60_000);
    for (const renewTickets of [async () => new Map([[ID, stale]]), async () => new Map(), async () => { throw new Error('Origo down'); }]) {
      const access = createProxyAccess({ proxies: [{ id: ID, url: proxy.url, ticket: ticketFor(ID, Date.now() - 9 * 60_000) }], fetch, logger: { warn() {} }, renewTickets });
      const res = await access.fetch(fetchUrl(proxy.url));
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error.code, 'ERR_TICKET_EXPIRED');
    }
  });

  it('with a real connect and no ticket, the client sees ERR_TICKET_MISSING', async () => {
    await assert.rejects(
      connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig, fetch }),
      (/** @type {any} */ err) => err.code === 'ERR_RTC_SIGNAL_HTTP' && err.status === 401 && err.remoteCode === 'ERR_TICKET_MISSING');
  });

  it('with requireTickets off, /fetch and /rtc/offer need no ticket', async () => {
    const res = await fetch(fetchUrl(open.url));
    assert.equal(res.status, 200);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), new Uint8Array(data));
    const peer = await connectPeer({ url: open.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig, fetch });
    assert.equal(peer.channel.readyState, 'open');
    peer.close();
  });

  it('refuses to start with requireTickets but no token (ERR_BAD_CONFIG)', async () => {
    await assert.rejects(startProxy({ id: 'no-token', requireTickets: true, logger: captureLogger().logger }), { code: 'ERR_BAD_CONFIG' });
  });
});
