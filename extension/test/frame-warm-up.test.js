// The frame's warm-up: a MUTP download asked for while the WebRTC connections still open runs
// over HTTP (no segment waits on a connect), later ones use the warmed connections; when every
// warm-up connection fails with a WebRTC code, no segment tries WebRTC and each record says why.
// N is drawn only among values the usable proxies can serve.
import assert from 'node:assert/strict';
import { createRequestServer } from '../src/frame/serve-requests.js';
import { chooseN } from '../src/shared/choose.js';
import { createOriginHeads, namePattern } from '../src/frame/origin-heads.js';
import { compilePatterns } from '../src/shared/patterns.js';
import { HTTP_REWARM_MS } from '@mutp/proxyclientlib/limits';
import { RTC_CONNECT_AFTER_DOWNLOADS, RTC_CONNECT_WAIT_MAX_MS, createWarmUp } from '../src/frame/warm-up.js';
import { createBreakers } from '../src/frame/breaker.js';

const URL1 = 'http://origin.test/v/seg1.m4s';
const quiet = { warn: () => {} };
const FLEET = ['p1', 'p2', 'p3', 'p4'].map((id) => ({ id, url: `http://${id}.test/`, ticket: 't' }));
/** @returns {any} */
const settings = (over = {}) => ({ enabled: true, patterns: [], detect: 'all-sites', mode: 'coded', n: 2, randomModes: [], randomN: [], proximity: false, location: null, ...over });
const tick = () => new Promise((r) => setImmediate(r));

/**
 * @param {{s?: any, preconnect: (list: any[]) => Promise<any[]>, heads?: any, fetch?: typeof fetch, connected?: Set<string>,
 *   kept?: number, hold?: Promise<void>, clock?: {t: number}, gate?: {afterDownloads?: number, maxWaitMs?: number},
 *   sleep?: (ms: number) => Promise<void>}} o  connected: proxies with `kept` connections each (default 2);
 *   hold: MUTP downloads end when it resolves; gate: the warm-up's startup gate (default none: connects at once)
 */
function harness({ s = settings(), preconnect, heads, fetch, connected = new Set(), kept = 2, hold, clock = { t: 0 }, gate = { afterDownloads: 0 }, sleep }) {
  const bg = [];
  const posted = [];
  const calls = [];
  const preconnects = [];
  const httpWarms = [];
  const client = {
    warmHttp: async (list) => { httpWarms.push(list.map((p) => p.id)); return list.map((p) => ({ id: p.id, ok: true, code: null })); },
    download: async (url, o) => {
      calls.push({ mode: o.mode, n: o.proxies.length });
      if (hold && ['coded', 'uncoded'].includes(o.mode)) await hold;
      o.onProgress?.({ objectBytes: 3, chunks: [{ offset: 0, bytes: new Uint8Array([1, 2, 3]) }] });
      return { data: new Uint8Array([1, 2, 3]), stats: { id: `r${calls.length}`, mode: o.mode, n: o.proxies.length, proxyIds: o.proxies.map((p) => p.id), error: null } };
    },
    keptConnections: (url) => (connected.has(new URL(url).hostname.split('.')[0]) ? kept : 0),
    preconnect: (list, o) => {
      preconnects.push({ ids: list.map((p) => p.id), perProxy: o.perProxy });
      return preconnect(list).then((out) => { for (const x of out) if (x.ok) connected.add(x.id); return out; }); // a connection that opened is kept idle
    },
  };
  const proxies = { list: async () => FLEET, invalidate() {} };
  const now = () => clock.t;
  const breakers = createBreakers();
  const warmUp = createWarmUp({ proxies: () => proxies, client: () => client, breakers, now, logger: quiet, gate, ...(sleep ? { sleep } : {}) });
  const server = createRequestServer({
    state: () => ({ settings: s, matches: compilePatterns(s.patterns), client, clientId: 'c1', proxies, fetch }),
    port: { postMessage: (m) => posted.push(m) }, toBackground: (m) => bg.push(m), logger: quiet, now, breakers, warmUp, ...(heads ? { heads } : {}),
  });
  const get = (id, url = URL1) => server.onPageMessage({ t: 'get', id, url, range: null, how: 'manifest' });
  return { calls, preconnects, httpWarms, posted, server, get, records: () => bg.filter((m) => m.t === 'record').map((m) => m.record) };
}

describe('extension frame: warm-up', () => {
  it('while the connections open a MUTP segment goes over HTTP, saying why; once open, MUTP on them', async () => {
    let open = () => {};
    const h = harness({ preconnect: (list) => new Promise((r) => { open = () => r(list.map((p) => ({ id: p.id, ok: true, code: null }))); }) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    assert.deepEqual(h.preconnects, [{ ids: ['p1', 'p2'], perProxy: 1 }], 'connects to the proxies the downloads will use');
    await h.get(1);
    open();
    await tick();
    await h.get(2);
    assert.deepEqual(h.calls.map((c) => c.mode), ['parallel-http', 'coded']);
    assert.deepEqual(h.preconnects.map((p) => p.perProxy), [1, 2], 'then a second connection each, for two downloads at once');
    assert.deepEqual(h.records().map((r) => [r.mode, r.modeWanted ?? null, r.modeWhy ?? null]), [['parallel-http', 'coded', 'ERR_RTC_WARMING'], ['coded', null, null]]);
  });

  it('opens an HTTP connection to each proxy the downloads will use, in every mode, again only after HTTP_REWARM_MS', async () => {
    const clock = { t: 0 };
    const h = harness({ s: settings({ mode: 'range-http', n: 3 }), clock, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    assert.deepEqual(h.httpWarms, [['p1', 'p2', 'p3']]);
    assert.deepEqual(h.preconnects, [], 'an HTTP mode opens no WebRTC connection');
    clock.t = HTTP_REWARM_MS - 1;
    h.server.onPageMessage({ t: 'warm' }); // the next page's warm-up: the browser still keeps those connections
    await tick();
    assert.deepEqual(h.httpWarms, [['p1', 'p2', 'p3']]);
    clock.t = HTTP_REWARM_MS;
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    assert.deepEqual(h.httpWarms, [['p1', 'p2', 'p3'], ['p1', 'p2', 'p3']]);
  });

  it('after the warm-up, a MUTP segment that finds each kept connection carrying another download goes over HTTP at once, saying why, and one more each opens', async () => {
    let release = () => {};
    const hold = new Promise((r) => { release = () => r(undefined); });
    const h = harness({ kept: 1, hold, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    const first = h.get(1); // holds the one kept connection to each proxy
    await h.get(2); // asked at once, before the first took its connections
    release();
    await first;
    await h.get(3); // the first gave them back
    assert.deepEqual(h.calls.map((c) => c.mode), ['coded', 'parallel-http', 'coded']);
    assert.deepEqual(h.records().map((r) => [r.mode, r.modeWanted ?? null, r.modeWhy ?? null]),
      [['parallel-http', 'coded', 'ERR_RTC_BUSY'], ['coded', null, null], ['coded', null, null]]);
    assert.deepEqual(h.preconnects.slice(-1), [{ ids: ['p1', 'p2'], perProxy: 1 }], 'one more connection each, for the next download beside these');
  });

  it('startup gate: WebRTC connects wait for the page\'s first downloads (over HTTP meanwhile); the HTTP warm-up does not', async () => {
    const ok = async (/** @type {any[]} */ list) => list.map((p) => ({ id: p.id, ok: true, code: null }));
    const h = harness({ gate: {}, sleep: () => new Promise(() => {}), preconnect: ok }); // the default gate, its timer never fires
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    assert.deepEqual(h.httpWarms, [['p1', 'p2']], 'HTTP connections open at once');
    for (let i = 1; i < RTC_CONNECT_AFTER_DOWNLOADS; i++) await h.get(i);
    await tick();
    assert.deepEqual(h.preconnects, [], `no WebRTC connect before ${RTC_CONNECT_AFTER_DOWNLOADS} downloads ended`);
    await h.get(RTC_CONNECT_AFTER_DOWNLOADS);
    await tick();
    assert.deepEqual(h.preconnects.map((p) => p.perProxy), [1, 2]);
    assert.ok(h.records().every((r) => r.mode === 'parallel-http' && r.modeWhy === 'ERR_RTC_WARMING'), 'no segment waited on the gate');
    await h.get(99);
    assert.equal(h.calls.at(-1)?.mode, 'coded', 'then MUTP on the connections');
  });

  it('startup gate: the page\'s media playing opens it before the downloads would (a playing heard before the round began does not count)', async () => {
    const ok = async (/** @type {any[]} */ list) => list.map((p) => ({ id: p.id, ok: true, code: null }));
    const h = harness({ gate: {}, sleep: () => new Promise(() => {}), preconnect: ok }); // the default gate, its timer never fires
    h.server.onPageMessage({ t: 'playing' }); // before any warm-up: tells the next round nothing
    h.server.onPageMessage({ t: 'warm' });
    await h.get(1);
    await tick();
    assert.deepEqual(h.preconnects, [], 'no WebRTC connect before the page plays');
    h.server.onPageMessage({ t: 'playing' });
    await tick();
    assert.deepEqual(h.preconnects.map((p) => p.perProxy), [1, 2], 'connects once the page plays, one download in');
    await h.get(2);
    assert.equal(h.calls.at(-1)?.mode, 'coded', 'then MUTP on the connections');
  });

  it('startup gate: a page that asks for no segment gets its connections after RTC_CONNECT_WAIT_MAX_MS', async () => {
    /** @type {number[]} */
    const waits = [];
    let fire = () => {};
    const sleep = (/** @type {number} */ ms) => { waits.push(ms); return new Promise((r) => { fire = () => r(undefined); }); };
    const h = harness({ gate: {}, sleep, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    assert.deepEqual([h.preconnects, waits], [[], [RTC_CONNECT_WAIT_MAX_MS]]);
    fire();
    await tick();
    assert.deepEqual(h.preconnects.map((p) => p.perProxy), [1, 2]);
  });

  it('startup gate on a later page: a segment that finds every kept connection busy says ERR_RTC_BUSY and opens none before the gate', async () => {
    let release = () => {};
    const hold = new Promise((r) => { release = () => r(undefined); });
    const h = harness({ gate: {}, sleep: () => new Promise(() => {}), connected: new Set(['p1', 'p2']), kept: 1, hold, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    const first = h.get(1); // holds the one kept connection to each proxy
    await h.get(2);
    release();
    await first;
    assert.deepEqual(h.records().map((r) => [r.mode, r.modeWhy ?? null]), [['parallel-http', 'ERR_RTC_BUSY'], ['coded', null]]);
    assert.deepEqual(h.preconnects, [], 'no connect while the warm-up waits for the page\'s start');
  });

  it('the round\'s record says, per proxy, how many connections were kept as it began (idle or lent: a later page\'s downloads may hold them)', async () => {
    const h = harness({ connected: new Set(['p1']), kept: 1, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    for (let i = 0; i < 5; i++) await tick();
    assert.deepEqual(h.server.warmUp()?.outcomes, [{ id: 'p1', ok: true, code: null, kept: 1 }, { id: 'p2', ok: true, code: null, kept: 0 }]);
  });

  it('after the warm-up settled, a segment one of whose proxies failed to connect says ERR_RTC_WARMING (not busy) and that connection is opened again', async () => {
    let rounds = 0; // p2 fails to connect in the warm-up's first round only
    const h = harness({ preconnect: async (list) => list.map((p) => (p.id === 'p2' && rounds++ === 0 ? { id: p.id, ok: false, code: 'ERR_RTC_CONNECT_TIMEOUT' } : { id: p.id, ok: true, code: null })) });
    h.server.onPageMessage({ t: 'warm' });
    for (let i = 0; i < 5; i++) await tick(); // the round settled: p1 connected, p2 not
    const before = h.preconnects.length;
    await h.get(1);
    await h.get(2);
    assert.deepEqual(h.records().map((r) => [r.mode, r.modeWhy ?? null]), [['parallel-http', 'ERR_RTC_WARMING'], ['coded', null]]);
    assert.deepEqual(h.preconnects.slice(before).map((p) => p.ids), [['p1', 'p2']], 'one more connection each, for the next segment');
  });

  it('during the warm-up, a MUTP segment whose proxies are connected already runs in MUTP', async () => {
    const connected = new Set(['p1']);
    const h = harness({ s: settings({ n: 'random', randomN: [1, 2] }), connected, preconnect: () => new Promise(() => {}) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    for (let i = 1; i <= 20; i++) await h.get(i);
    assert.deepEqual([...new Set(h.calls.map((c) => `${c.mode}/${c.n}`))].sort(), ['coded/1', 'parallel-http/2']);
  });

  it('a segment with no warm-up message before it starts the warm-up itself and does not wait on it', async () => {
    const h = harness({ preconnect: () => new Promise(() => {}) });
    await h.get(1);
    assert.equal(h.preconnects.length, 1);
    assert.deepEqual(h.calls.map((c) => c.mode), ['parallel-http']);
  });

  it('every warm-up connection fails with a WebRTC code: no segment tries WebRTC, every record names the code', async () => {
    const h = harness({ preconnect: async (list) => list.map((p) => ({ id: p.id, ok: false, code: 'ERR_RTC_NO_CANDIDATE_PAIR' })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    for (let i = 1; i <= 3; i++) await h.get(i);
    assert.deepEqual(h.calls.map((c) => c.mode), ['parallel-http', 'parallel-http', 'parallel-http']);
    assert.deepEqual(h.records().map((r) => [r.modeWanted, r.modeWhy, r.error]), Array(3).fill(['coded', 'ERR_RTC_NO_CANDIDATE_PAIR', null]));
    assert.deepEqual(h.server.breakers().map((b) => b.key), ['rtc']);
  });

  it('after the backoff, WebRTC is probed by a warm-up, not by a segment: still broken, no segment ever waited on it', async () => {
    const clock = { t: 0 };
    const h = harness({ clock, preconnect: async (list) => list.map((p) => ({ id: p.id, ok: false, code: 'ERR_RTC_NO_CANDIDATE_PAIR' })) });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    for (let i = 1; i <= 6; i++) {
      clock.t += 4000; // past the first backoffs (10 s, 20 s)
      await h.get(i);
      await tick();
    }
    assert.deepEqual([...new Set(h.calls.map((c) => c.mode))], ['parallel-http'], 'no segment in MUTP');
    assert.equal(h.preconnects.length, 2, 'the warm-up, then one probe when the 10 s backoff passed');
    assert.deepEqual(h.server.breakers().map((b) => [b.key, b.failures]), [['rtc', 2]]);
  });

  it('N: only values the 4 usable proxies serve are drawn; a pinned 6 runs with 4 and the record says so', async () => {
    const h = harness({ s: settings({ mode: 'parallel-http', n: 'random', randomN: [1, 2, 4, 6] }), preconnect: async () => [] });
    for (let i = 1; i <= 40; i++) await h.get(i);
    assert.deepEqual([...new Set(h.calls.map((c) => c.n))].sort(), [1, 2, 4], 'never 6, every value that fits');
    assert.ok(h.records().every((r) => r.nWanted === undefined), 'a drawn N that fits needs no note');
    const pinned = harness({ s: settings({ mode: 'parallel-http', n: 6 }), preconnect: async () => [] });
    await pinned.get(1);
    assert.deepEqual(pinned.calls.map((c) => c.n), [4]);
    assert.deepEqual(pinned.records().map((r) => [r.n, r.nWanted, r.nWhy]), [[4, 6, 'ERR_FEW_PROXIES']]);
  });

  it('chooseN: nothing fits → the proxies there are, with the smallest N wanted', () => {
    assert.deepEqual(chooseN(settings({ n: 'random', randomN: [4, 6] }), 2, () => 0), { n: 2, nWanted: 4, nWhy: 'ERR_FEW_PROXIES' });
    assert.deepEqual(chooseN(settings({ n: 'random', randomN: [1, 2, 4, 6] }), 4, () => 0.99), { n: 4 });
  });

  it('MUTP heads: the next segment of a stream takes the type learned from the one before, with no HEAD of its own', async () => {
    const heads = createOriginHeads();
    /** @type {string[]} */
    const asked = [];
    const fetch = heads.observing(/** @type {any} */ (async (u) => { asked.push(new URL(u).searchParams.get('url')); return new Response(null, { status: 200, headers: { 'content-type': 'video/iso.segment', 'content-length': '3' } }); }));
    const h = harness({ preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })), heads, fetch });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    await h.get(1, 'http://origin.test/v/seg-1-00001');
    await h.get(2, 'http://origin.test/v/seg-1-00002');
    await h.get(3, 'http://origin.test/v/seg-2-00002');
    assert.deepEqual(h.calls.map((c) => c.mode), ['coded', 'coded', 'coded']);
    assert.deepEqual(asked, ['http://origin.test/v/seg-1-00001', 'http://origin.test/v/seg-2-00002'], 'one HEAD per name pattern');
    assert.deepEqual(h.posted.filter((m) => m.t === 'data').map((m) => m.type), ['video/iso.segment', 'video/iso.segment', 'video/iso.segment']);
    assert.equal(namePattern('http://o.test/a/7/seg-12.m4s?x=1'), 'http://o.test/a/7/seg-#.m4s');
  });

  it('MUTP heads: a byte range asks its HEAD for that range (the proxy fetches those bytes only, the same fetch as the download)', async () => {
    const heads = createOriginHeads();
    /** @type {(string | null)[]} */
    const ranges = [];
    const fetch = heads.observing(/** @type {any} */ (async (_u, init) => {
      ranges.push(new Headers(init?.headers).get('range'));
      return new Response(null, { status: 206, headers: { 'content-type': 'video/mp4', 'content-range': 'bytes 100-199/5000000' } });
    }));
    const h = harness({ preconnect: async (list) => list.map((p) => ({ id: p.id, ok: true, code: null })), heads, fetch });
    h.server.onPageMessage({ t: 'warm' });
    await tick();
    await h.server.onPageMessage({ t: 'get', id: 1, url: 'http://origin.test/v/media.mp4', range: { start: 100, end: 199 }, how: 'manifest' });
    assert.deepEqual(ranges, ['bytes=100-199']);
    const d = h.posted.find((m) => m.t === 'data');
    assert.deepEqual([d.type, d.size], ['video/mp4', 5_000_000], 'the origin\'s type and total size reach the page');
  });
});

