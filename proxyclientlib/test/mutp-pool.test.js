// Kept proxy connections (rtc/peer-pool.js) over real WebRTC on loopback: downloads reuse them
// (one channel, downloads told apart by downloadId),
// a dead one is replaced without failing the download, idle ones close.
import assert from 'node:assert/strict';
import http from 'node:http';
import express from 'express';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { downloadMutp } from '../src/mutp/index.js';
import { createPeerPool } from '../src/rtc/peer-pool.js';
import { REUSED_SILENT_MS } from '@mutp/protocol';
import { mountRtc } from '@mutp/proxy/rtc';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes, waitFor } from '@mutp/testkit/mutp-harness';

const URL_A = 'http://origin.test/a';
/** Past a silent proxy's REUSED_SILENT_MS: a connect's time (ms), with a lost DTLS flight's 1 s retransmission. */
const SILENT_MARGIN_MS = 1200;
const body = testBytes(300_000, 11);
const objects = () => memoryObjects(new Map([[URL_A, body]]));
const common = { RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} }, url: URL_A };

/** A proxy on a given loopback port (the same address as one that went away). @param {number} port */
async function proxyOnPort(port) {
  const app = express();
  /** @type {any[]} */
  const records = [];
  const rtc = mountRtc(app, {
    objects: objects(), logs: { record: (r) => records.push(r) }, stats: { activeSessions: 0, bytesSent: 0 },
    logger: { info() {}, warn() {}, error() {} }, config: { id: 'reborn', host: '127.0.0.1' },
  });
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  return { records, rtc, kill: () => { rtc.close(); server.closeAllConnections(); server.close(); } };
}

describe('MUTP kept connections (peer pool, loopback)', function () {
  this.timeout(60_000);

  it('reuses one connection per proxy across downloads, replaces a dead one, closes when asked', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const p1 = await startTestProxy({ id: 'p1', objects: objects() });
    const pool = createPeerPool();
    /** @type {Awaited<ReturnType<typeof proxyOnPort>> | null} */
    let reborn = null;
    try {
      const proxies = [p0.ref, p1.ref];
      for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
        const { data } = await downloadMutp({ ...common, mode, proxies, peerPool: pool });
        assert.equal(sha256(data), sha256(body), `${mode}: byte-exact`);
      }
      assert.deepEqual(pool.counters(), { connects: 2, reuses: 2, discarded: 0 });
      await waitFor(() => p0.records.length === 2); // recorded when `done` arrives
      assert.equal(p0.records.length, 2, 'p0 served both downloads');
      // the client's hedged connect may leave a losing attempt on the proxy until the proxy
      // notices it closed (at most its 15 s never-opened sweep): the steady state is one peer
      await waitFor(() => p0.rtc.peerCount === 1);
      assert.equal(p0.rtc.peerCount, 1, 'over one peer connection');
      assert.equal(pool.idleCount, 2);

      // p1 goes away; a new proxy process takes its address: the kept connection to p1 is dead
      const port = Number(new URL(p1.url).port);
      p1.kill();
      reborn = await proxyOnPort(port);
      // p1 alone, so the download cannot finish from p0 before the replacement connects
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p1.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body), 'byte-exact after the replacement');
      const r = reborn;
      await waitFor(() => r.records.length === 1);
      assert.equal(r.records[0].error, null, 'the new proxy served its share');
      assert.ok(r.records[0].packetsSent > 0);
      const c = pool.counters();
      assert.equal(c.connects, 3, 'one new connection, for the dead one');

      pool.close();
      assert.equal(pool.idleCount, 0);
      await waitFor(() => p0.rtc.peerCount === 0 && /** @type {any} */ (reborn).rtc.peerCount === 0);
      await assert.rejects(downloadMutp({ ...common, mode: 'coded', proxies, peerPool: pool }), /ERR_POOL_CLOSED/, 'a closed pool refuses new downloads');
    } finally {
      pool.close();
      p0.kill();
      p1.kill();
      reborn?.kill();
    }
  });

  it('replaces a kept connection whose proxy stays silent, without failing the download', async () => {
    const inner = objects();
    let calls = 0;
    // the second request (the first on the kept connection) is never answered: a wedged proxy
    const wedgedOnce = { async get(/** @type {string} */ url) { return ++calls === 2 ? new Promise(() => {}) : inner.get(url); } };
    const p0 = await startTestProxy({ id: 'p0', objects: wedgedOnce });
    const pool = createPeerPool();
    try {
      for (let i = 0; i < 2; i++) {
        const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
        assert.equal(sha256(data), sha256(body), `download ${i + 1} byte-exact`);
      }
      assert.equal(calls, 3, 'the silent connection was replaced and the request made again');
      assert.deepEqual(pool.counters(), { connects: 2, reuses: 1, discarded: 1 });
    } finally {
      pool.close();
      p0.kill();
    }
  });

  it('a download the caller aborts gives back the connections that were alive (their proxies told done); a silent one is discarded', async () => {
    const big = testBytes(4_000_000, 5);
    const URL_BIG = 'http://origin.test/big';
    const live = await startTestProxy({ id: 'live', objects: memoryObjects(new Map([[URL_BIG, big], [URL_A, body]])) });
    const silent = await startTestProxy({ id: 'silent', objects: { get: () => new Promise(() => {}) } });
    const pool = createPeerPool();
    try {
      // aborted mid-transfer: its proxy is alive
      const ctrl = new AbortController();
      const aborted = downloadMutp({ ...common, url: URL_BIG, mode: 'coded', proxies: [live.ref], peerPool: pool, signal: ctrl.signal,
        onProgress: () => ctrl.abort() });
      await assert.rejects(aborted, { code: 'ERR_ABORTED' });
      await waitFor(() => live.records.length === 1); // the proxy ends the download on done
      assert.equal(live.records[0].error, null, 'told done, not cut off');
      assert.ok(live.records[0].bytesSent < big.length, 'stopped before the end');
      assert.deepEqual(pool.counters(), { connects: 1, reuses: 0, discarded: 0 });
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [live.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body), 'the next download reuses it, byte-exact');
      assert.deepEqual(pool.counters(), { connects: 1, reuses: 1, discarded: 0 });
      // aborted while its proxy had said nothing for longer than a live one would
      const quiet = new AbortController();
      const waited = downloadMutp({ ...common, mode: 'coded', proxies: [silent.ref], peerPool: pool, signal: quiet.signal });
      // silent past REUSED_SILENT_MS counted from its connect, which may itself take ~150 ms on
      // loopback (1 s more when a DTLS flight is lost): 1600 ms from the start was too close
      setTimeout(() => quiet.abort(), REUSED_SILENT_MS + SILENT_MARGIN_MS);
      await assert.rejects(waited, { code: 'ERR_ABORTED' });
      assert.deepEqual(pool.counters(), { connects: 2, reuses: 1, discarded: 1 }, 'the silent connection is not kept');
    } finally {
      pool.close();
      live.kill();
      silent.kill();
    }
  });

  it('a proxy that refuses an object in words keeps its connection: the next download reuses it', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const pool = createPeerPool();
    try {
      await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
      await assert.rejects(downloadMutp({ ...common, url: 'http://origin.test/missing', mode: 'coded', proxies: [p0.ref], peerPool: pool }),
        (/** @type {any} */ e) => e.code === 'ERR_ALL_PROXIES_FAILED' && e.perProxy?.[0]?.error?.code === 'ERR_ORIGIN_STATUS');
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body), 'byte-exact on the kept connection');
      assert.deepEqual(pool.counters(), { connects: 1, reuses: 2, discarded: 0 });
    } finally {
      pool.close();
      p0.kill();
    }
  });

  it('closeIdle: the kept connections close, the next download connects anew, the pool stays open', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const pool = createPeerPool();
    try {
      await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
      assert.equal(pool.idleCount, 1);
      pool.closeIdle();
      assert.equal(pool.idleCount, 0);
      await waitFor(() => p0.rtc.peerCount === 0);
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body));
      assert.deepEqual(pool.counters(), { connects: 2, reuses: 0, discarded: 0 });
      assert.equal(pool.idleCount, 1, 'the new connection is kept again');
    } finally {
      pool.close();
      p0.kill();
    }
  });

  it('closeIdle(urls): only the connections to those proxies close', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const p1 = await startTestProxy({ id: 'p1', objects: objects() });
    const pool = createPeerPool();
    try {
      await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref, p1.ref], peerPool: pool });
      assert.equal(pool.idleCount, 2);
      pool.closeIdle([p1.ref.url]);
      assert.equal(pool.idleFor(p0.ref.url), 1, 'the other proxy keeps its connection');
      assert.equal(pool.idleFor(p1.ref.url), 0);
      await waitFor(() => p1.rtc.peerCount === 0);
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref, p1.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body));
      assert.deepEqual(pool.counters(), { connects: 3, reuses: 1, discarded: 0 });
    } finally {
      pool.close();
      p0.kill();
      p1.kill();
    }
  });

  it('keptFor counts a proxy\'s connections idle or lent: lent ones until given back, none once discarded', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const pool = createPeerPool();
    try {
      const opts = { url: p0.ref.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC };
      const [a, b] = await Promise.all([pool.acquire(opts), pool.acquire(opts)]);
      assert.deepEqual([pool.keptFor(p0.ref.url), pool.idleFor(p0.ref.url)], [2, 0], 'two lent');
      a.close();
      assert.deepEqual([pool.keptFor(p0.ref.url), pool.idleFor(p0.ref.url)], [2, 1], 'one given back, kept idle');
      b.discard();
      b.close(); // a second end changes nothing
      assert.deepEqual([pool.keptFor(p0.ref.url), pool.idleFor(p0.ref.url)], [1, 1], 'the discarded one is gone');
      assert.equal(pool.keptFor('http://127.0.0.1:9/'), 0);
    } finally {
      pool.close();
      p0.kill();
    }
  });

  it('closes a connection that stayed idle past its timeout', async () => {
    const p0 = await startTestProxy({ id: 'p0', objects: objects() });
    const pool = createPeerPool({ idleTimeoutMs: 50 });
    try {
      const { data } = await downloadMutp({ ...common, mode: 'coded', proxies: [p0.ref], peerPool: pool });
      assert.equal(sha256(data), sha256(body));
      await waitFor(() => pool.idleCount === 0 && p0.rtc.peerCount === 0);
    } finally {
      pool.close();
      p0.kill();
    }
  });
});
