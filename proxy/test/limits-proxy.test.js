// Proxy limits: session cap refused before any peer connection with 503 ERR_PROXY_BUSY,
// concurrent /fetch and origin-fetch caps, the per-address request rate, and the CLI flags.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { startProxy } from '../index.js';
import { configFromCli } from '../src/config/cli-config.js';
import { resolveConfig } from '../src/config/resolve-config.js';
import http from 'node:http';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';

const OVER_CAP = 10; // 10 sessions over the cap, each refused quickly
const SLOT_FREE_TRIES = 100; // offers until a closed peer's slot is free again…
const SLOT_FREE_WAIT_MS = 50; // …this far apart: 5 s in all, for a loaded machine

describe('proxy limits', function () {
  const data = testBytes(10_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {(() => void)[]} */ const held = [];

  before(async () => {
    origin = await startOrigin((req, res) => {
      // /slow answers only when the test says so: it keeps a fetch in flight
      if (req.url?.startsWith('/slow')) return held.push(() => res.end(data));
      res.writeHead(200, { 'content-type': 'video/webm' }).end(data);
    });
  });
  after(async () => {
    for (const release of held.splice(0)) release();
    await origin?.close();
  });
  const common = () => ({ host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger });

  it(`refuses ${OVER_CAP} sessions over the cap with 503 ERR_PROXY_BUSY, and serves again once a slot frees`, async () => {
    const proxy = await startProxy({ ...common(), maxSessions: 1 });
    try {
      const first = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig: { bindAddress: '127.0.0.1' } });
      const ms = [];
      for (let i = 0; i < OVER_CAP; i++) {
        const t0 = performance.now();
        const res = await fetch(`${proxy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n' }) });
        ms.push(performance.now() - t0);
        assert.equal(res.status, 503);
        assert.equal((await res.json()).error.code, 'ERR_PROXY_BUSY');
      }
      ms.sort((a, b) => a - b);
      // a measurement, not an assertion (the machine is shared): printed for the report
      console.log(`      ${OVER_CAP} refusals over the session cap: median ${ms[ms.length >> 1].toFixed(2)} ms, max ${ms.at(-1)?.toFixed(2)} ms`);
      first.close();
      // the slot frees when the proxy sees the peer connection go, which can come after its
      // session ended (healthz's activeSessions 0): offer again while it says busy
      let again = null;
      for (let i = 0; i < SLOT_FREE_TRIES && !again; i++) {
        again = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig: { bindAddress: '127.0.0.1' } })
          .catch((/** @type {any} */ err) => { if (err.remoteCode !== 'ERR_PROXY_BUSY') throw err; return null; });
        if (!again) await new Promise((r) => setTimeout(r, SLOT_FREE_WAIT_MS));
      }
      assert.ok(again, `still busy ${SLOT_FREE_TRIES * SLOT_FREE_WAIT_MS} ms after the only peer closed`);
      again.close();
    } finally {
      await proxy.close();
    }
  });

  it('keeps an idle HTTP connection open past Node\'s 5 s default: a client\'s next download after a pause reuses it', async function () {
    // 6 s of the test's own wait; a CI run once took over 15 s here, the next test 1.5 s instead of 20 ms
    this.timeout(30_000);
    const proxy = await startProxy(common());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    /** @returns {Promise<boolean>} the request went over a connection opened before */
    const reused = () => new Promise((resolve, reject) => {
      const req = http.get(`${proxy.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.reusedSocket));
      });
      req.on('error', reject);
    });
    try {
      assert.equal(await reused(), false);
      await new Promise((r) => setTimeout(r, 6000));
      assert.equal(await reused(), true, 'the proxy closed the idle connection');
    } finally {
      agent.destroy();
      await proxy.close();
    }
  });

  it('caps concurrent /fetch responses (503 ERR_PROXY_BUSY) without touching the origin', async () => {
    const proxy = await startProxy({ ...common(), maxHttpFetches: 1 });
    try {
      const hits0 = origin.hits();
      const slow = fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/slow-1`)}`);
      while (origin.hits() === hits0) await new Promise((r) => setTimeout(r, 10));
      const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/other`)}`);
      assert.equal(res.status, 503);
      assert.equal((await res.json()).error.code, 'ERR_PROXY_BUSY');
      assert.equal(origin.hits(), hits0 + 1, 'the refused request fetched nothing');
      /** @type {() => void} */ (held.shift())();
      assert.equal((await slow).status, 200);
      // the slot is free again
      const ok = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/other`)}`);
      assert.equal(ok.status, 200);
      assert.deepEqual(new Uint8Array(await ok.arrayBuffer()), new Uint8Array(data));
    } finally {
      await proxy.close();
    }
  });

  it('caps concurrent origin fetches (503 ERR_PROXY_BUSY); cached objects are still served', async () => {
    const proxy = await startProxy({ ...common(), maxOriginFetches: 1 });
    try {
      const cached = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/cached`)}`);
      assert.equal(cached.status, 200);
      await cached.arrayBuffer();
      const hits0 = origin.hits();
      const slow = fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/slow-2`)}`);
      while (origin.hits() === hits0) await new Promise((r) => setTimeout(r, 10));
      const busy = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/new`)}`);
      assert.equal(busy.status, 503);
      assert.equal((await busy.json()).error.code, 'ERR_PROXY_BUSY');
      const hit = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/cached`)}`);
      assert.equal(hit.status, 200);
      assert.equal(hit.headers.get('x-mutp-cache'), 'HIT');
      await hit.arrayBuffer();
      /** @type {() => void} */ (held.shift())();
      assert.equal((await slow).status, 200);
    } finally {
      await proxy.close();
    }
  });

  it('rate-limits a client address (429 ERR_RATE_LIMITED); X-Forwarded-For does not pick another key', async () => {
    const proxy = await startProxy({ ...common(), rateLimitPerMinute: 3 });
    try {
      const u = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/rate`)}`;
      for (let i = 0; i < 3; i++) assert.equal((await fetch(u).then(async (r) => { await r.arrayBuffer(); return r; })).status, 200);
      const res = await fetch(u, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.equal(res.status, 429);
      assert.equal((await res.json()).error.code, 'ERR_RATE_LIMITED');
      const offer = await fetch(`${proxy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(offer.status, 429, '/rtc/offer shares the limit');
      assert.equal((await fetch(`${proxy.url}/healthz`)).status, 200, '/healthz is not limited');
    } finally {
      await proxy.close();
    }
  });

  it('CLI: tickets required by default; --no-require-tickets, --rtc-bind and the limit flags/env are read', () => {
    const on = /** @type {any} */ (configFromCli(['--id', 'p', '--token', 'ab'], {})).config;
    assert.equal(resolveConfig(on).requireTickets, true);
    assert.throws(() => resolveConfig(/** @type {any} */ (configFromCli(['--id', 'p'], {})).config), { code: 'ERR_BAD_CONFIG' }, 'tickets need a token');
    const off = resolveConfig(/** @type {any} */ (configFromCli(['--no-require-tickets', '--rtc-bind', '10.0.0.5', '--max-sessions', '7',
      '--max-fetches', '9', '--max-origin-fetches', '3', '--rate-limit', '0'], {})).config);
    assert.deepEqual([off.requireTickets, off.rtcBindAddress, off.maxSessions, off.maxHttpFetches, off.maxOriginFetches, off.rateLimitPerMinute],
      [false, '10.0.0.5', 7, 9, 3, 0]);
    const env = resolveConfig(/** @type {any} */ (configFromCli([], { PROXY_REQUIRE_TICKETS: '0', PROXY_RTC_BIND: '127.0.0.1', PROXY_MAX_SESSIONS: '2' })).config);
    assert.deepEqual([env.requireTickets, env.rtcBindAddress, env.maxSessions], [false, '127.0.0.1', 2]);
    assert.throws(() => resolveConfig({ maxSessions: 0 }), { code: 'ERR_BAD_CONFIG' });
  });
});
