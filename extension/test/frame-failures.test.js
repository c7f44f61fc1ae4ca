// The frame learns from failure: a WebRTC transport that cannot connect is retried at once in
// Parallel HTTP and then skipped (breaker), every failure and cancellation becomes a record, and
// the origin's head relayed by a proxy reaches the page.
import assert from 'node:assert/strict';
import { createRequestServer } from '../src/frame/serve-requests.js';
import { createOriginHeads } from '../src/frame/origin-heads.js';
import { createBreakers } from '../src/frame/breaker.js';
import { compilePatterns } from '../src/shared/patterns.js';

const URL1 = 'http://origin.test/v/seg1.m4s';
const quiet = { warn: () => {} };
/** @returns {any} */
const settings = (over = {}) => ({ enabled: true, patterns: [], detect: 'all-sites', mode: 'coded', n: 2, randomModes: [], randomN: [], proximity: false, location: null, ...over });
const rtcFailure = () => Object.assign(new Error('all 2 proxies failed'), {
  code: 'ERR_ALL_PROXIES_FAILED',
  perProxy: [{ proxyId: 'p1', error: { code: 'ERR_RTC_NO_CANDIDATE_PAIR', message: 'x' } }, { proxyId: 'p2', error: { code: 'ERR_RTC_NO_CANDIDATE_PAIR', message: 'x' } }],
  stats: { id: 'r1', mode: 'coded', n: 2, proxyIds: ['p1', 'p2'], error: { code: 'ERR_ALL_PROXIES_FAILED' } },
});

/** A Parallel HTTP download whose two proxies both failed with `code`. @param {string} code @param {string} message */
const bothProxiesFailed = (code, message) => Object.assign(new Error('all 2 proxies failed'), {
  code: 'ERR_ALL_PROXIES_FAILED',
  perProxy: ['p1', 'p2'].map((proxyId) => ({ proxyId, error: { code, message } })),
  stats: { id: 'r1', mode: 'parallel-http', n: 2, proxyIds: ['p1', 'p2'], error: { code: 'ERR_ALL_PROXIES_FAILED' } },
});

function harness({ s = settings(), download, heads = createOriginHeads(), clock = { t: 0 }, breakers = undefined, proxies = undefined }) {
  const posted = [];
  const bg = [];
  const calls = [];
  const client = { download: async (url, o) => { calls.push({ url, mode: o.mode }); return download(url, o, calls.length); } };
  const server = createRequestServer({
    state: () => ({ settings: s, matches: compilePatterns(s.patterns), client, clientId: 'c1', proxies }),
    port: { postMessage: (m) => posted.push(m) }, toBackground: (m) => bg.push(m), logger: quiet, heads, now: () => clock.t, breakers,
  });
  return { posted, bg, calls, server, records: () => bg.filter((m) => m.t === 'record').map((m) => m.record) };
}

const ok = (mode) => ({ data: new Uint8Array([1, 2, 3]), stats: { id: 'ok', mode, n: 2, proxyIds: ['p1', 'p2'], error: null } });

describe('extension frame: failures', () => {
  it('WebRTC that cannot connect: the same request is served in Parallel HTTP at once, then MUTP is skipped while the breaker is open', async () => {
    const clock = { t: 0 };
    const h = harness({ clock, download: async (_u, o) => { if (o.mode === 'coded') throw rtcFailure(); return ok(o.mode); } });
    await h.server.onPageMessage({ t: 'get', id: 1, url: URL1, range: null, how: 'extension' });
    assert.deepEqual(h.calls.map((c) => c.mode), ['coded', 'parallel-http']);
    assert.deepEqual(h.posted.map((m) => m.t), ['data', 'end'], 'no failure reached the page');
    const recs = h.records();
    assert.deepEqual(recs.map((r) => r.error?.code ?? null), ['ERR_ALL_PROXIES_FAILED', null], 'the failed MUTP attempt is a record too');
    assert.equal(recs[1].modeWanted, 'coded');
    await h.server.onPageMessage({ t: 'get', id: 2, url: URL1, range: null, how: 'extension' });
    assert.deepEqual(h.calls.map((c) => c.mode), ['coded', 'parallel-http', 'parallel-http'], 'the open breaker skips WebRTC');
    clock.t += 60_000;
    await h.server.onPageMessage({ t: 'get', id: 3, url: URL1, range: null, how: 'extension' });
    assert.equal(h.calls.at(-2).mode, 'coded', 'after the backoff WebRTC is tried again');
  });

  it('an origin that encodes its bodies despite identity: the page fetches directly, and the host (not the proxies) is skipped while its breaker is open', async () => {
    const encoded = () => bothProxiesFailed('ERR_ORIGIN_ENCODED', 'origin sent Content-Encoding gzip to a request for identity');
    const breakers = createBreakers();
    const h = harness({ s: settings({ mode: 'parallel-http' }), breakers, download: async () => { throw encoded(); } });
    await h.server.onPageMessage({ t: 'get', id: 1, url: URL1, range: null, how: 'extension' });
    assert.deepEqual(h.posted.map((m) => m.t), ['fail'], 'the page fetches it itself');
    assert.deepEqual(breakers.snapshot(0).map((b) => b.key), ['host:origin.test'], "the proxies stay open to other hosts");
    await h.server.onPageMessage({ t: 'get', id: 2, url: URL1.replace('seg1', 'seg2'), range: null, how: 'extension' });
    assert.equal(h.calls.length, 1, 'the next segment of that host does not go to the fleet');
    assert.equal(h.posted.at(-1).t, 'fail');
    assert.equal(h.posted.at(-1).code, 'ERR_FLEET_SKIPPED');
  });

  it('an origin 404 every proxy reports: the page fetches that segment itself, and the next one still goes through the fleet', async () => {
    const missing = () => bothProxiesFailed('ERR_ORIGIN_STATUS', 'origin answered 404');
    const breakers = createBreakers();
    const h = harness({ s: settings({ mode: 'parallel-http' }), breakers, download: async (_u, o, nth) => { if (nth === 1) throw missing(); return ok(o.mode); } });
    await h.server.onPageMessage({ t: 'get', id: 1, url: URL1, range: null, how: 'extension' });
    assert.deepEqual(h.posted.map((m) => m.t), ['fail'], 'the page fetches it itself');
    assert.deepEqual(breakers.snapshot(0), [], 'no proxy and no host is skipped for one missing URL');
    await h.server.onPageMessage({ t: 'get', id: 2, url: URL1.replace('seg1', 'seg2'), range: null, how: 'extension' });
    assert.equal(h.calls.length, 2, 'the next segment goes to the fleet');
    assert.deepEqual(h.posted.slice(1).map((m) => m.t), ['data', 'end']);
  });

  it('each request the frame takes is one runtime message: its first record says it was seen, and why (a retry over HTTP is not seen twice)', async () => {
    const h = harness({ download: async (_u, o) => { if (o.mode === 'coded') throw rtcFailure(); return ok(o.mode); } });
    await h.server.onPageMessage({ t: 'get', id: 1, url: URL1, range: null, how: 'manifest' });
    assert.deepEqual(h.bg.map((m) => [m.t, m.seen ?? null]), [['record', 'manifest'], ['record', null]]);
    await h.server.onPageMessage({ t: 'get', id: 2, url: URL1, range: null, how: 'range' });
    assert.deepEqual(h.bg.slice(2).map((m) => [m.t, m.seen ?? null]), [['record', 'range']], 'one message for a download served at once');
    h.server.onPageMessage({ t: 'fallback', url: URL1, reason: 'ERR_RANGE_UNSUPPORTED: bytes=0-' });
    assert.deepEqual(h.bg.slice(3).map((m) => [m.t, m.seen ?? null]), [['fallback', null], ['record', null]], 'a request the frame never took was not seen');
  });

  it('a download the page cancels for no progress is recorded with that reason', async () => {
    let release;
    const h = harness({ s: settings({ mode: 'parallel-http' }), download: (_u, o) => new Promise((_, reject) => { release = () => reject(Object.assign(new Error('aborted'), { code: 'ERR_ABORTED', stats: { id: 'x', mode: 'parallel-http', n: 2, proxyIds: ['p1'] } })); o.signal.addEventListener('abort', () => release()); }) });
    const done = h.server.onPageMessage({ t: 'get', id: 4, url: URL1, range: null, how: 'manifest' });
    await new Promise((r) => setImmediate(r));
    h.server.onPageMessage({ t: 'abort', id: 4, code: 'ERR_NO_PROGRESS' });
    await done;
    assert.deepEqual(h.records().map((r) => [r.error?.code, r.segment]), [['ERR_NO_PROGRESS', 'manifest']]);
  });

  it('the page\'s stall timer hears of verified bytes in the HTTP modes, of any bytes in the MUTP modes', async () => {
    for (const [mode, held] of /** @type {[string, number][]} */ ([['range-http', 0], ['parallel-http', 0], ['coded', 1], ['uncoded', 1]])) {
      const clock = { t: 0 };
      const h = harness({ clock, s: settings({ mode }), download: async (_u, o) => {
        clock.t += 1000;
        o.onProgress({ objectBytes: 3 }); // bytes in, none verified (a share held for the lists; a generation not decoded yet)
        clock.t += 1000;
        o.onProgress({ objectBytes: 3, chunks: [{ offset: 2, bytes: new Uint8Array([3]) }] }); // a verified piece, not in order yet
        return ok(mode);
      } });
      await h.server.onPageMessage({ t: 'get', id: 8, url: URL1, range: null, how: 'extension' });
      assert.equal(h.posted.filter((m) => m.t === 'alive').length, held + 1, mode);
    }
  });

  it('a fallback the frame never saw (an unsupported Range) is recorded with its code; n is at least 1', async () => {
    const h = harness({ download: async () => ok('coded') });
    h.server.onPageMessage({ t: 'fallback', url: URL1, reason: 'ERR_RANGE_UNSUPPORTED: bytes=0-' });
    const [r] = h.records();
    assert.equal(r.error.code, 'ERR_RANGE_UNSUPPORTED');
    assert.ok(r.n >= 1);
    assert.equal(r.clientId, 'c1');
    h.server.onPageMessage({ t: 'fallback', url: URL1, reason: 'ERR_NO_PROGRESS: x', id: 9 });
    assert.equal(h.records().length, 1, 'a request the frame served was recorded by the frame already');
  });

  it('the body reaches the page in a few large posts, and a download that fails midway posts every in-order byte before the failure', async () => {
    const packet = (/** @type {number} */ i) => ({ offset: i * 1100, bytes: new Uint8Array(1100).fill(i & 0xff) });
    // 300 uncoded packets (330,000 bytes), one onProgress each, then the whole body
    const body = new Uint8Array(300 * 1100);
    for (let i = 0; i < 300; i++) body.set(packet(i).bytes, i * 1100);
    const whole = harness({ s: settings({ mode: 'uncoded' }), download: async (_u, o) => {
      for (let i = 0; i < 300; i++) o.onProgress({ objectBytes: body.length, chunks: [packet(i)] });
      return { data: body, stats: { id: 'u', mode: 'uncoded', n: 2, proxyIds: ['p1', 'p2'], error: null } };
    } });
    await whole.server.onPageMessage({ t: 'get', id: 6, url: URL1, range: null, how: 'extension' });
    const posts = whole.posted.filter((m) => m.t === 'data');
    assert.ok(posts.length <= 6, `${posts.length} posts for 300 packets`);
    assert.deepEqual(Buffer.concat(posts.map((m) => new Uint8Array(m.buf))), Buffer.from(body));

    const broken = harness({ s: settings({ mode: 'uncoded' }), download: async (_u, o) => {
      for (let i = 0; i < 10; i++) o.onProgress({ objectBytes: body.length, chunks: [packet(i)] });
      throw Object.assign(new Error('source gone'), { code: 'ERR_ALL_PROXIES_FAILED', stats: { id: 'b', mode: 'uncoded', n: 2, proxyIds: ['p1', 'p2'] } });
    } });
    await broken.server.onPageMessage({ t: 'get', id: 7, url: URL1, range: null, how: 'extension' });
    const told = broken.posted.filter((m) => m.t !== 'alive');
    assert.deepEqual(told.map((m) => m.t), ['data', 'fail']);
    assert.deepEqual(new Uint8Array(told[0].buf), body.subarray(0, 11_000), 'the page has the first 11,000 bytes: it fetches only the rest directly');
  });

  it('the origin head the proxy relayed (type, total size) goes to the page with the bytes', async () => {
    const heads = createOriginHeads();
    const proxyFetch = heads.observing(async () => new Response(new Uint8Array(3), { status: 206, headers: { 'content-type': 'video/iso.segment', 'content-range': 'bytes 10-12/5000' } }));
    const h = harness({ s: settings({ mode: 'parallel-http' }), heads, download: async (url, o) => { await proxyFetch(`http://p1.test/fetch?url=${encodeURIComponent(url)}`); o.onProgress({ objectBytes: 3, chunks: [{ offset: 0, bytes: new Uint8Array([7, 8, 9]) }] }); return ok(o.mode); } });
    await h.server.onPageMessage({ t: 'get', id: 5, url: URL1, range: { start: 10, end: 12 }, how: 'range' });
    const d = h.posted.find((m) => m.t === 'data');
    assert.deepEqual([d.type, d.size, d.total], ['video/iso.segment', 5000, 3]);
  });

  it('a digest list answered on /fetch (&digests=1) is not taken for the origin head', async () => {
    const heads = createOriginHeads();
    const at = (/** @type {string} */ q) => `http://p1.test/fetch?url=${encodeURIComponent(URL1)}${q}`;
    const answers = {
      [at('&digests=1')]: new Response(new Uint8Array(8), { status: 200, headers: { 'content-type': 'application/octet-stream', 'content-length': '8' } }),
      [at('')]: new Response(new Uint8Array(3), { status: 206, headers: { 'content-type': 'video/mp4', 'content-range': 'bytes 0-2/5000' } }),
    };
    const f = heads.observing(async (input) => answers[String(input)]);
    await f(at(''));
    await f(at('&digests=1')); // after the body: it must not overwrite what the body said
    assert.deepEqual(heads.get(URL1), { type: 'video/mp4', size: 5000 });
  });

  it('a segment that probes proxies back from a stall gets half the page\'s patience, then the page is told to fetch it directly', async () => {
    const PATIENCE_MS = 60; // the page's; the probe gets half of it
    const list = [{ id: 'p1', url: 'http://p1.test', ticket: null }, { id: 'p2', url: 'http://p2.test', ticket: null }];
    const proxies = { list: async () => list, invalidate() {} };
    /** never a byte; rejects when stopped, as ProxyClientLib does */
    const stalled = (_u, o) => new Promise((_, reject) => o.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { code: 'ERR_ABORTED', stats: { id: 'x', mode: 'parallel-http', n: 2, proxyIds: ['p1', 'p2'] } }))));
    const s = settings({ mode: 'parallel-http', noProgressTimeoutMs: PATIENCE_MS });
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));

    // not a probe: the page's own timer decides, the frame never gives up on it
    const fresh = harness({ s, proxies, breakers: createBreakers(), download: stalled });
    const running = fresh.server.onPageMessage({ t: 'get', id: 1, url: URL1, range: null, how: 'manifest' });
    await wait(PATIENCE_MS * 2);
    assert.deepEqual(fresh.posted, [], 'the frame cut a download of healthy proxies');
    fresh.server.onPageMessage({ t: 'abort', id: 1, code: 'ERR_NO_PROGRESS' });
    await running;
    assert.deepEqual(fresh.posted, [], 'the page gave up itself: nothing to tell it');

    // both proxies stalled a segment; their backoff has passed
    const clock = { t: 0 };
    const breakers = createBreakers();
    for (const p of list) breakers.fail(`proxy:${p.id}`, 'ERR_NO_PROGRESS', 0);
    clock.t = 60_000;
    const probe = harness({ s, proxies, breakers, clock, download: stalled });
    const t0 = performance.now();
    await probe.server.onPageMessage({ t: 'get', id: 2, url: URL1, range: null, how: 'manifest' });
    const tookMs = performance.now() - t0;
    assert.deepEqual(probe.posted.map((m) => [m.t, m.code]), [['fail', 'ERR_NO_PROGRESS']], 'the page is told to fetch it directly');
    assert.match(probe.posted[0].message, new RegExp(`nothing for ${PATIENCE_MS / 2} ms`));
    assert.ok(tookMs >= PATIENCE_MS / 2 - 5, `the probe gave up after ${tookMs.toFixed(0)} ms`);
    assert.deepEqual(probe.records().map((r) => r.error?.code), ['ERR_NO_PROGRESS']);
    assert.deepEqual(breakers.snapshot(clock.t).map((b) => [b.key, b.failures]), [['proxy:p1', 2], ['proxy:p2', 2]], 'the backoff doubled');

    // a probe that sends bytes in time is served to its end
    clock.t = 10 * 60_000;
    const slow = harness({ s, proxies, breakers, clock, download: async (_u, o) => {
      o.onProgress({ objectBytes: 3, chunks: [{ offset: 0, bytes: new Uint8Array([1, 2, 3]) }] });
      await wait(PATIENCE_MS);
      if (o.signal.aborted) throw o.signal.reason;
      return ok('parallel-http');
    } });
    await slow.server.onPageMessage({ t: 'get', id: 3, url: URL1, range: null, how: 'manifest' });
    assert.deepEqual(slow.posted.map((m) => m.t), ['alive', 'data', 'end']);
    assert.deepEqual(breakers.snapshot(clock.t), [], 'a probe served whole closes the breakers');
  });

  it('breakers back off exponentially and close on success', () => {
    const b = createBreakers({ baseMs: 100, maxMs: 1000 });
    b.fail('rtc', 'ERR_X', 0);
    assert.equal(b.allows('rtc', 99), false);
    assert.equal(b.allows('rtc', 100), true);
    b.fail('rtc', 'ERR_X', 100);
    assert.equal(b.allows('rtc', 299), false);
    b.succeed('rtc');
    assert.equal(b.allows('rtc', 101), true);
  });
});
