// An origin that fails, seen through real proxies on loopback: each proxy's failure is the
// origin's (an ERR_ORIGIN_* code), in every mode, including a body the proxies had begun to
// stream when the origin stopped, so a caller (the extension's breakers, a player plugin) blames
// the origin and not the fleet. And it comes within seconds, not after the proxies' 30 s cap.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { ORIGIN_FETCH_TIMEOUT_MS, ORIGIN_IDLE_TIMEOUT_MS } from '@mutp/protocol/constants';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';
import { withOriginCause } from '../src/http/proxy-fetch.js';
import { startTamperProxy } from '@mutp/testkit/tamper-proxy';

const MODES = /** @type {const} */ (['parallel-http', 'range-http', 'uncoded', 'coded']);
const BODY_BYTES = 1 << 20;
const SENT_BEFORE_STOP = 300_000; // what the stalling origin sends before it stops: the proxies have begun to stream
const silent = { info() {}, warn() {}, error() {} };
/** The proxies' digest list answers are held this long (ms): a cut body then always reaches the client before its list's error. */
const LIST_ANSWER_DELAY_MS = 300;

describe('ProxyClientLib: an origin that fails, through real proxies', function () {
  this.timeout(60_000);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** @type {http.ServerResponse[]} */ const held = [];
  let hits = 0;

  before(async () => {
    origin = http.createServer((req, res) => {
      hits++;
      const path = String(req.url).split('?')[0];
      if (path === '/stops.bin') {
        res.writeHead(200, { 'content-type': 'video/iso.segment', 'content-length': String(BODY_BYTES) });
        res.write(Buffer.alloc(SENT_BEFORE_STOP, 7));
        held.push(res); // then nothing: the socket stays open
        return;
      }
      res.writeHead(404).end('no');
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    originUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (origin.address()).port}`;
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `p${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [new URL(originUrl).host], logger: silent })));
  });
  after(async () => {
    for (const r of held) r.destroy();
    await Promise.all(proxies.map((p) => p.close()));
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });

  /** @param {string} mode @param {string} path @param {{id: string, url: string}[]} [refs] */
  async function failure(mode, path, refs = proxies.map((p, i) => ({ id: `p${i}`, url: p.url }))) {
    const client = createClient({ origo: null, logger: { warn() {} } });
    const t0 = performance.now();
    try {
      await client.download(`${originUrl}${path}?mode=${mode}&n=${Math.random()}`, { mode: /** @type {any} */ (mode), proxies: refs });
      return { err: null, ms: performance.now() - t0 };
    } catch (err) {
      return { err: /** @type {any} */ (err), ms: performance.now() - t0 };
    } finally {
      client.close();
    }
  }

  it(`a body that stops mid-way: every proxy's failure is ERR_ORIGIN_TIMEOUT, in every mode, within seconds (not the ${ORIGIN_FETCH_TIMEOUT_MS / 1000} s cap)`, async () => {
    const results = await Promise.all(MODES.map((m) => failure(m, '/stops.bin')));
    for (const [k, { err, ms }] of results.entries()) {
      assert.ok(err, `${MODES[k]}: the download failed`);
      const codes = err.stats.perProxy.map((/** @type {any} */ p) => p.error?.code);
      assert.deepEqual(codes, proxies.map(() => 'ERR_ORIGIN_TIMEOUT'), `${MODES[k]}: ${err.message}`);
      assert.ok(ms < ORIGIN_IDLE_TIMEOUT_MS + ORIGIN_FETCH_TIMEOUT_MS / 3, `${MODES[k]}: failed after ${Math.round(ms)} ms`);
    }
  });

  it('Range-split, each list\'s error reaching the client after its proxy\'s cut share: still the origin\'s', async () => {
    const mitms = await Promise.all(proxies.map((p) => startTamperProxy({ upstream: p.url, tamper: { delayListAnswerMs: LIST_ANSWER_DELAY_MS } })));
    try {
      const { err } = await failure('range-http', '/stops.bin', mitms.map((m, i) => ({ id: `p${i}`, url: m.url })));
      assert.deepEqual(err.stats.perProxy.map((/** @type {any} */ p) => p.error?.code), proxies.map(() => 'ERR_ORIGIN_TIMEOUT'), err.message);
    } finally {
      await Promise.all(mitms.map((m) => m.close()));
    }
  });

  it('a 404 in Parallel HTTP: ERR_ORIGIN_STATUS from each proxy, and the origin asked once per proxy (no list request fetches it again)', async () => {
    const before = hits;
    const { err } = await failure('parallel-http', '/missing.bin');
    assert.deepEqual(err.stats.perProxy.map((/** @type {any} */ p) => p.error?.code), proxies.map(() => 'ERR_ORIGIN_STATUS'));
    assert.equal(hits - before, proxies.length);
  });

  it('a 404 in every mode: the failure\'s message says what the origin answered, once', async () => {
    const results = await Promise.all(MODES.map((m) => failure(m, '/missing.bin')));
    for (const [k, { err }] of results.entries()) {
      assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED', MODES[k]);
      assert.match(err.message, /^all 3 proxies failed \((each )?ERR_ORIGIN_STATUS; (p\d: )?(http:\S+ )?origin answered 404\)$/, `${MODES[k]}: ${err.message}`);
    }
  });

  it('withOriginCause: only a cut body is given its list\'s origin error', () => {
    const lost = { code: 'ERR_PROXY_CONNECTION_LOST', message: 'lost' };
    const stalled = { code: 'ERR_PROXY_STALLED', message: 'stalled' };
    const origin504 = { code: 'ERR_ORIGIN_TIMEOUT', message: 'origin stopped' };
    assert.equal(withOriginCause(lost, origin504), origin504);
    assert.equal(withOriginCause(stalled, origin504), origin504);
    assert.equal(withOriginCause(lost, { code: 'ERR_PROXY_STATUS', message: '500' }).code, 'ERR_PROXY_CONNECTION_LOST');
    assert.equal(withOriginCause({ code: 'ERR_INTEGRITY', message: 'liar' }, origin504).code, 'ERR_INTEGRITY', 'a liar stays a liar');
    assert.equal(withOriginCause(null, origin504), null);
    assert.equal(withOriginCause(lost, null), lost);
  });
});
