// Next-object hints (`next` on a /fetch, a hint datagram after a MUTP request): a client names the
// object it will ask next; the proxy fetches it whole in a free origin slot, so the request that
// follows is a cache hit. A refused hint is a warning and a count; its request is served all the same.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startProxy } from '../index.js';
import { createObjectStore } from '../src/objects/object-store.js';
import { MAX_READ_AHEADS_IN_FLIGHT } from '../src/objects/read-ahead.js';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { LOOPBACK_RTC } from '@mutp/testkit/mutp-harness';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
/** Until the proxy has no origin fetch under way. @param {{url: string}} p */
const settled = async (p) => {
  while ((await (await fetch(`${p.url}/healthz`)).json()).cache.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
};

describe('object store prefetch', () => {
  /** A fetcher whose answers wait until `release`; `fail` names URLs it refuses. */
  function heldFetcher(/** @type {Set<string>} */ fail = new Set()) {
    /** @type {string[]} */
    const calls = [];
    /** @type {(() => void)[]} */
    const held = [];
    const fetcher = async (/** @type {string} */ url) => {
      calls.push(url);
      await new Promise((res) => held.push(() => res(undefined)));
      if (fail.has(url)) throw Object.assign(new Error('404 by test'), { code: 'ERR_ORIGIN_STATUS' });
      return { bytes: new TextEncoder().encode(url), contentType: 'video/mp4', range: null, total: url.length };
    };
    return { fetcher, calls, release: () => { for (const h of held.splice(0)) h(); } };
  }

  it('fetches a named object once, and a get meanwhile waits for that fetch', async () => {
    const f = heldFetcher();
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20, readAheadBytes: 8 << 20 });
    assert.equal(store.prefetch('http://o/seg-2.m4s'), true);
    assert.equal(store.prefetch('http://o/seg-2.m4s'), false, 'on its way already');
    const got = store.get('http://o/seg-2.m4s');
    f.release();
    assert.equal(new TextDecoder().decode((await got).bytes), 'http://o/seg-2.m4s');
    assert.equal(store.prefetch('http://o/seg-2.m4s'), false, 'held');
    assert.deepEqual(f.calls, ['http://o/seg-2.m4s'], 'one origin request');
    assert.equal(store.stats().readAheads, 1);
  });

  it('shares the read-ahead limits: a free origin slot for clients, at most MAX_READ_AHEADS_IN_FLIGHT, off with read-ahead', async () => {
    const f = heldFetcher();
    const one = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20, readAheadBytes: 8 << 20, maxOriginFetches: 1 });
    assert.equal(one.prefetch('http://o/a'), false, 'one origin slot: kept for clients');
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20, readAheadBytes: 8 << 20 });
    assert.equal(MAX_READ_AHEADS_IN_FLIGHT, 2);
    assert.deepEqual(['b', 'c', 'd'].map((n) => store.prefetch(`http://o/${n}`)), [true, true, false]);
    const off = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20 });
    assert.equal(off.prefetch('http://o/e'), false);
    f.release();
  });

  it('a prefetch that fails is counted and leaves the get after it to ask the origin again', async () => {
    const f = heldFetcher(new Set(['http://o/gone']));
    const store = createObjectStore({ fetcher: f.fetcher, maxBytes: 1 << 20, readAheadBytes: 8 << 20 });
    store.prefetch('http://o/gone');
    f.release();
    await new Promise((res) => setTimeout(res, 10));
    assert.equal(store.stats().readAheadFailures, 1);
    const again = store.get('http://o/gone').catch((e) => e.code);
    f.release();
    assert.equal(await again, 'ERR_ORIGIN_STATUS');
    assert.equal(f.calls.length, 2, 'the failure was not cached');
    assert.equal(store.prefetch('http://o/gone'), true, 'the slots were given back');
    f.release();
  });
});

describe('proxy: next on a /fetch', () => {
  const data = testBytes(300_001);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let strict;
  /** @type {string[]} */
  const asked = [];
  const log = captureLogger();

  before(async () => {
    origin = await startOrigin((req, res) => {
      asked.push(String(req.url));
      res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(data);
    });
    const common = { host: '127.0.0.1', allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger };
    proxy = await startProxy({ ...common, allowPrivate: true, logger: log.logger });
    strict = await startProxy({ ...common, allowedHosts: [] });
  });
  after(async () => {
    await Promise.all([proxy?.close(), strict?.close()]);
    await origin?.close();
  });

  const fetchUrl = (/** @type {string} */ base, /** @type {string} */ url, /** @type {string} */ next) =>
    `${base}/fetch?url=${encodeURIComponent(url)}&mode=parallel-http&next=${encodeURIComponent(next)}`;

  it('serves the fetch and fetches the next object meanwhile; the /fetch after it is a cache hit, byte-exact', async () => {
    const [one, two] = [`${origin.url}/seg-00011.m4s`, `${origin.url}/seg-00012.m4s`];
    const served = await fetch(fetchUrl(proxy.url, one, two));
    assert.equal(served.status, 200);
    assert.equal(sha(new Uint8Array(await served.arrayBuffer())), sha(data));
    await settled(proxy);
    assert.equal(proxy.objects.has(two), true, 'the next object is held');
    const got = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(two)}`);
    assert.equal(got.headers.get('x-mutp-cache'), 'HIT');
    assert.equal(sha(new Uint8Array(await got.arrayBuffer())), sha(data));
    assert.deepEqual(asked.filter((u) => u === '/seg-00012.m4s'), ['/seg-00012.m4s'], 'one origin request');
  });

  it('a refused next (bad URL, blocked address, host off the allowlist) only warns and is counted; its fetch is served', async () => {
    const one = `${origin.url}/seg-00021.m4s`;
    const before = proxy.stats.hintsRefused;
    for (const [p, next] of /** @type {[typeof proxy, string][]} */ ([[proxy, 'ftp://example.com/a.ts'], [proxy, 'http://example.com/a.ts'],
      [strict, `http://127.0.0.1:${origin.port}/a.ts`]])) {
      const res = await fetch(fetchUrl(p.url, p === strict ? `http://127.0.0.1:${origin.port}/blocked.m4s` : one, next));
      assert.equal(res.status, p === proxy ? 200 : 403, 'the fetch is answered as without the hint');
      await res.arrayBuffer();
    }
    assert.equal(asked.some((u) => u === '/a.ts' || u === '/blocked.m4s'), false, 'nothing refused reached the origin');
    assert.ok(log.lines.some((l) => l.level === 'warn' && /next-object hint refused/.test(l.msg)));
    assert.equal(proxy.stats.hintsRefused - before, 2, 'the bad URL and the host off the allowlist');
    assert.equal((await (await fetch(`${strict.url}/healthz`)).json()).hintsRefused, 1, 'the blocked address');
  });
});

describe('proxy: the object a WebRTC offer names first', function () {
  this.timeout(20_000);
  const data = testBytes(200_003);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {string[]} */
  const asked = [];

  before(async () => {
    origin = await startOrigin((req, res) => {
      asked.push(String(req.url));
      res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(data);
    });
    proxy = await startProxy({ host: '127.0.0.1', allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });

  it('is fetched while the connection opens, before any request on it; a refused URL is counted and the offer still answered', async () => {
    const first = `${origin.url}/first-1.m4s`;
    const peer = await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, first });
    await settled(proxy);
    peer.close();
    assert.deepEqual(asked, ['/first-1.m4s'], 'the origin was asked for it once, with no download request');
    assert.equal(proxy.objects.has(first), true, 'held for the request to come');
    const before = proxy.stats.hintsRefused;
    const refused = await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, first: 'http://example.com/x.m4s' });
    refused.close();
    assert.equal(proxy.stats.hintsRefused - before, 1);
    assert.deepEqual(asked, ['/first-1.m4s'], 'nothing refused reached the origin');
  });

  it('a first that is not a URL string: 400 ERR_BAD_OFFER', async () => {
    for (const first of [42, '', 'x'.repeat(9000)]) {
      const res = await fetch(`${proxy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'offer', sdp: 'v=0\r\n', first }) });
      assert.equal(res.status, 400, String(first).slice(0, 20));
      assert.equal((await res.json()).error.code, 'ERR_BAD_OFFER');
    }
  });
});
