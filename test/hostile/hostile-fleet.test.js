// Single hostile peers against a real local fleet (127.0.0.1 and 127.0.0.2 only): a flood of WebRTC
// offers that never connect, a proxy SIGKILLed with records Origo has not acked, slow requests.
// Timings are printed, never asserted; `npm run bench:hostile` measures the attacks' figures.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { issueTicket, proxyToken, startOrigo } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { MAX_PENDING_PEERS_PER_ADDRESS, MAX_PENDING_PEERS_PER_CLIENT } from '@mutp/proxy/rtc-limits';
import { parseSpool } from '@mutp/proxy/log-spool';
import { startDemoOrigin } from '@mutp/demo/origin';
import { freePort } from '@mutp/testkit/origo-process';
import { deadOffer, fetchFrom, spawnProxy, stallRequest } from './helpers/hostile-tools.js';

const silent = { info() {}, warn() {}, error() {} };
const SECRET = 'hostile-fleet-secret-0123456789';
const FLOOD_ADDRESS = '127.0.0.2';
const FLOOD_OFFERS = 70; // the attack: more never-connecting offers than the proxy has peer slots (64)
const LEGIT_TRIES = 3;
const SPOOL_RECORDS = 30;

/** @param {string} proxyId @param {string} clientId */
const ticket = (proxyId, clientId) => issueTicket({ secret: SECRET, clientId, proxyId, now: Date.now() }).ticket;

/** @param {typeof fetch} f @param {string} url @param {string} sdp @param {string} t */
async function offer(f, url, sdp, t) {
  const res = await f(`${url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp, ticket: t }) });
  return { status: res.status, code: res.ok ? null : (await res.json()).error?.code };
}

describe('hostile: WebRTC slots a flood of never-connecting offers cannot take', function () {
  this.timeout(120_000);
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  const ID = 'rtc-target';
  before(async () => {
    proxy = await startProxy({ id: ID, token: proxyToken(SECRET, ID), host: '127.0.0.1', port: 0, requireTickets: true, rateLimitPerMinute: 0, logger: silent });
  });
  after(async () => { await proxy?.close(); });

  it(`caps peers not yet open per client (${MAX_PENDING_PEERS_PER_CLIENT}) and per address (${MAX_PENDING_PEERS_PER_ADDRESS}); a client at another address still connects`, async () => {
    const sdp = await deadOffer();
    const flood = fetchFrom(FLOOD_ADDRESS);
    const codes = /** @type {Record<string, number>} */ ({});
    /** @type {(number | string)[]} */ const oneClient = [];
    // one client id, then many: the per-client cap, then the per-address cap
    for (let i = 0; i < FLOOD_OFFERS; i++) {
      const r = await offer(flood, proxy.url, sdp, ticket(ID, i < 4 ? 'flooder' : `flooder-${i}`));
      if (i < 4) oneClient.push(r.code ?? r.status);
      const key = `${r.status} ${r.code ?? ''}`.trim();
      codes[key] = (codes[key] ?? 0) + 1;
    }
    assert.deepEqual(codes, { 200: MAX_PENDING_PEERS_PER_ADDRESS, '429 ERR_PEERS_PENDING': FLOOD_OFFERS - MAX_PENDING_PEERS_PER_ADDRESS },
      'the first client id gets its 2, the rest of the address up to 8; everything else is refused');
    assert.deepEqual(oneClient, [200, 200, 'ERR_PEERS_PENDING', 'ERR_PEERS_PENDING'], 'one client id may hold 2 opening peers');
    // a legitimate client at 127.0.0.1 connects, every time, while the flood holds its slots
    for (let i = 0; i < LEGIT_TRIES; i++) {
      const t0 = performance.now();
      const link = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig: { bindAddress: '127.0.0.1' },
        fetch: /** @type {any} */ ((/** @type {string} */ u, /** @type {any} */ init) => fetch(u, { ...init, body: JSON.stringify({ ...JSON.parse(init.body), ticket: ticket(ID, `legit-${i}`) }) })) });
      assert.equal(link.channel.readyState, 'open');
      console.log(`      legitimate client connected in ${(performance.now() - t0).toFixed(0)} ms during the flood (printed, not asserted)`);
      link.close();
    }
  });
});

describe('hostile: a proxy SIGKILLed with unshipped records loses none', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'mutp-spool-'));
  const spool = join(dir, 'proxy.spool');
  /** @type {Awaited<ReturnType<typeof startDemoOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startOrigo>> | null} */ let origo = null;
  /** @type {Awaited<ReturnType<typeof spawnProxy>> | null} */ let proxy = null;
  after(async () => {
    if (proxy && proxy.child.exitCode === null && proxy.child.signalCode === null) { proxy.child.kill('SIGKILL'); await proxy.exited; }
    await origo?.close();
    await origin?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${SPOOL_RECORDS} records made while Origo is down are all stored, once each, after a SIGKILL and a restart`, async () => {
    origin = await startDemoOrigin({ host: '127.0.0.1', port: 0 });
    const origoPort = await freePort(); // nothing listens here yet: Origo is down
    const id = 'spool-1';
    const args = ['--port', '0', '--id', id, '--token', proxyToken(SECRET, id), '--origo', `http://127.0.0.1:${origoPort}`, '--no-require-tickets',
      '--allowed-hosts', `127.0.0.1:${origin.port}`, '--allow-private', '--rate-limit', '0', '--log-spool', spool];
    proxy = await spawnProxy(args);
    for (let i = 0; i < SPOOL_RECORDS; i++) {
      const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/media/demo-${16 + i}KB.bin`)}`);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
    const spooled = await waitFor(() => {
      const { records } = parseSpool(readFileSync(spool, 'utf8'));
      return records.length === SPOOL_RECORDS ? records.map((r) => r.id) : null;
    });
    proxy.child.kill('SIGKILL');
    await proxy.exited;

    origo = await startOrigo({ proxySecret: SECRET, host: '127.0.0.1', port: origoPort, db: ':memory:', logger: silent, allowPrivateProxyUrls: true });
    proxy = await spawnProxy(args);
    const o = origo;
    const stored = await waitFor(async () => {
      const rows = await o.store.listProxyRecords({ limit: 1000 });
      return rows.length >= SPOOL_RECORDS ? rows : null;
    });
    assert.deepEqual(stored.map((/** @type {any} */ r) => r.id).sort(), [...spooled].sort(), 'exactly the spooled records, each once');
    assert.equal((await o.store.counts()).proxyRecords, SPOOL_RECORDS);
    // once acked, the spool is emptied
    await waitFor(() => readFileSync(spool, 'utf8') === '');
  });
});

describe('hostile: slow requests are cut off (header and request timeouts)', function () {
  // A bound, not a measurement: 4x the configured 10 s, and below Node's defaults (60 s headers,
  // 300 s request, checked every 30 s), so the test fails when the servers lose their timeouts.
  this.timeout(45_000);
  it('a proxy and Origo close a connection whose headers or body never finish', async () => {
    const proxy = await startProxy({ id: 'slow-target', host: '127.0.0.1', port: 0, rateLimitPerMinute: 0, logger: silent });
    const origo = await startOrigo({ proxySecret: SECRET, host: '127.0.0.1', port: 0, db: ':memory:', logger: silent });
    try {
      const results = await Promise.all([
        stallRequest(proxy.port, 'GET /healthz HTTP/1.1\r\nhost: x\r\n'),
        stallRequest(proxy.port, 'POST /rtc/offer HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"type":'),
        stallRequest(origo.port, 'GET /healthz HTTP/1.1\r\nhost: x\r\n'),
      ]);
      for (const r of results) assert.match(r.answer, /^HTTP\/1\.1 408 /, 'answered 408 Request Timeout, then closed');
      console.log(`      closed after ${results.map((r) => `${(r.ms / 1000).toFixed(1)} s`).join(', ')} (printed, not asserted)`);
    } finally {
      await proxy.close();
      await origo.close();
    }
  });
});

/** Polls `check` until it returns a truthy value; mocha's timeout bounds it. @template T @param {() => T | Promise<T>} check @returns {Promise<NonNullable<T>>} */
async function waitFor(check) {
  for (;;) {
    const v = await check();
    if (v) return /** @type {NonNullable<T>} */ (v);
    await new Promise((r) => setTimeout(r, 50));
  }
}
