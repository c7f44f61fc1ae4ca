// Next-object hints (GET /prefetch, or `next` on a /fetch): a client names the object it will ask
// next; the proxy fetches it whole in a free origin slot, so the request that follows is a cache
// hit. Refused inputs get their codes (/prefetch) or a warning (a /fetch is served all the same).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startProxy } from '../index.js';
import { createObjectStore } from '../src/objects/object-store.js';
import { MAX_READ_AHEADS_IN_FLIGHT } from '../src/objects/read-ahead.js';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';
import { issueTicket } from '@mutp/origo/client-ticket';
import { proxyToken } from '@mutp/origo';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

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

describe('proxy GET /prefetch', () => {
  const data = testBytes(300_001);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let strict;
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let ticketed;
  /** @type {string[]} */
  const asked = [];
  const SECRET = 'prefetch-secret-0123456789abcdef';
  const log = captureLogger();

  before(async () => {
    origin = await startOrigin((req, res) => {
      asked.push(String(req.url));
      res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(data);
    });
    const common = { host: '127.0.0.1', allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger };
    proxy = await startProxy({ ...common, allowPrivate: true, logger: log.logger });
    strict = await startProxy({ ...common, allowedHosts: [] });
    ticketed = await startProxy({ ...common, allowPrivate: true, id: 'pf', token: proxyToken(SECRET, 'pf'), requireTickets: true });
  });
  after(async () => {
    await Promise.all([proxy?.close(), strict?.close(), ticketed?.close()]);
    await origin?.close();
  });

  const prefetchUrl = (/** @type {string} */ base, /** @type {string} */ url) => `${base}/prefetch?url=${encodeURIComponent(url)}`;

  it('answers 202 at once and fetches the object; the /fetch after it is a cache hit, byte-exact', async () => {
    const seg = `${origin.url}/seg-00002.m4s`;
    const res = await fetch(prefetchUrl(proxy.url, seg));
    assert.equal(res.status, 202);
    assert.deepEqual(await res.json(), { started: true });
    const again = await (await fetch(prefetchUrl(proxy.url, seg))).json();
    assert.deepEqual(again, { started: false }, 'on its way or held already');
    while ((await (await fetch(`${proxy.url}/healthz`)).json()).cache.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    const got = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(seg)}`);
    assert.equal(got.headers.get('x-mutp-cache'), 'HIT');
    assert.equal(sha(new Uint8Array(await got.arrayBuffer())), sha(data));
    assert.deepEqual(asked.filter((u) => u === '/seg-00002.m4s'), ['/seg-00002.m4s'], 'one origin request');
  });

  it('a /fetch with next: served, and the next object fetched meanwhile; a refused next only warns', async () => {
    const [one, two] = [`${origin.url}/seg-00011.m4s`, `${origin.url}/seg-00012.m4s`];
    const served = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(one)}&mode=parallel-http&next=${encodeURIComponent(two)}`);
    assert.equal(served.status, 200);
    assert.equal(sha(new Uint8Array(await served.arrayBuffer())), sha(data));
    while ((await (await fetch(`${proxy.url}/healthz`)).json()).cache.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(proxy.objects.has(two), true, 'the next object is held');
    assert.deepEqual(asked.filter((u) => u === '/seg-00012.m4s'), ['/seg-00012.m4s']);
    const bad = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(one)}&next=${encodeURIComponent('ftp://example.com/x')}`);
    assert.equal(bad.status, 200, 'the fetch is served all the same');
    await bad.arrayBuffer();
    assert.ok(log.lines.some((l) => l.level === 'warn' && /next-object hint refused/.test(l.msg)));
    assert.equal(proxy.stats.hintsRefused, 1, 'and counted');
  });

  it('refuses a missing url, a bad url, a blocked address and a host off the allowlist, each with its code', async () => {
    const cases = [
      [`${proxy.url}/prefetch`, 400, 'ERR_BAD_QUERY'],
      [prefetchUrl(proxy.url, 'ftp://example.com/a.ts'), 400, 'ERR_BAD_URL'],
      [prefetchUrl(strict.url, `http://127.0.0.1:${origin.port}/a.ts`), 403, 'ERR_SSRF_BLOCKED'],
      [prefetchUrl(proxy.url, 'http://example.com/a.ts'), 403, 'ERR_HOST_NOT_ALLOWED'],
    ];
    for (const [url, status, code] of cases) {
      const res = await fetch(String(url));
      assert.equal(res.status, status, String(url));
      assert.equal((await res.json()).error.code, code);
    }
    assert.equal(asked.some((u) => u === '/a.ts'), false, 'nothing reached the origin');
    const counted = async (/** @type {typeof proxy} */ p) => (await (await fetch(`${p.url}/healthz`)).json()).hintsRefused;
    assert.ok(await counted(proxy) >= 2, 'the bad url and the host off the allowlist are counted');
    assert.equal(await counted(strict), 1);
  });

  it('needs a ticket where /fetch does', async () => {
    const seg = `${origin.url}/seg-00003.m4s`;
    const bare = await fetch(prefetchUrl(ticketed.url, seg));
    assert.equal(bare.status, 401);
    assert.equal((await bare.json()).error.code, 'ERR_TICKET_MISSING');
    const ticket = issueTicket({ secret: SECRET, clientId: 'c', proxyId: 'pf', now: Date.now() }).ticket;
    const ok = await fetch(`${prefetchUrl(ticketed.url, seg)}&ticket=${encodeURIComponent(ticket)}`);
    assert.equal(ok.status, 202);
  });
});
