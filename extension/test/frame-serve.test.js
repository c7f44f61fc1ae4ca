// The download frame's request server, in Node: the real ProxyClientLib against local fake
// proxies on 127.0.0.1, the real page side (frame link + fleet serve) over a real
// MessageChannel with transferred buffers. What the browser adds is only the wiring.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createClient } from '@mutp/proxyclientlib';
import { createRequestServer } from '../src/frame/serve-requests.js';
import { AHEAD_MAX_PER_PAGE } from '../src/frame/served-ahead.js';
import { createFrameLink } from '../src/page/frame-link.js';
import { serveThroughFleet } from '../src/page/fleet-serve.js';
import { compilePatterns } from '../src/shared/patterns.js';
import { startFakeProxy } from '@mutp/testkit/fake-proxy';
import { demoBytes } from '@mutp/demo/media';

const ORIGIN = 'http://origin.test'; // the fake proxies serve demo bytes by path, never fetch it
const PATTERNS = ['origin.test/media/*'];
const MB = 1 << 20;
const HOLD_AT_BYTES = 100_000; // each proxy response stops here until the test releases it
const NO_PROGRESS_MS = 10_000; // the page's stall timer: long, the test releases the proxies itself
const quiet = { warn: () => {} };
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

/** @param {object} over */
const settingsWith = (over) => ({ enabled: true, patterns: PATTERNS, detect: 'off', mode: 'parallel-http', n: 2, randomModes: [], randomN: [], proximity: false, location: null, ...over });

describe('extension frame: request server', function () {
  this.timeout(60_000);
  const cleanup = [];
  afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

  for (const mode of ['parallel-http', 'range-http']) {
    it(`${mode}: the page reads the first bytes while every proxy still holds the rest; the body is byte-exact`, async () => {
      const ps = [await startFakeProxy({ holdAfterBytes: HOLD_AT_BYTES }), await startFakeProxy({ holdAfterBytes: HOLD_AT_BYTES })];
      cleanup.push(...ps.map((p) => () => p.close()));
      const lib = createClient({ origo: null, logger: quiet });
      cleanup.push(() => lib.close());
      const refs = ps.map((p, i) => ({ id: `p${i}`, url: p.url }));
      // the frame passes N; here the proxies are given instead of asked of Origo
      const client = { download: (/** @type {string} */ url, /** @type {any} */ o) => lib.download(url, { ...o, proxies: refs }) };
      const channel = new MessageChannel();
      cleanup.push(() => { channel.port1.close(); channel.port2.close(); });
      const records = [];
      const server = createRequestServer({
        state: () => ({ settings: settingsWith({ mode }), matches: compilePatterns(PATTERNS), client }),
        port: channel.port1, toBackground: (m) => { if (m.t === 'record') records.push(m); }, logger: quiet,
      });
      channel.port1.onmessage = (e) => server.onPageMessage(e.data);
      const link = createFrameLink({ requestFrame: () => {}, warn: quiet.warn });
      link.attach(channel.port2);

      const url = `${ORIGIN}/media/demo-1MB.bin`;
      const served = await serveThroughFleet({
        link, url, range: null, signal: null, noProgressMs: NO_PROGRESS_MS, warn: quiet.warn,
        direct: () => Promise.reject(new Error('the direct fetch must not be needed')),
      });
      assert.ok(served, 'the fleet did not serve');
      const { head, body } = served;
      assert.equal(head.headers.find(([k]) => k === 'content-length')?.[1], String(MB), 'the size is known with the first bytes');
      const first = await body.next();
      assert.equal(first.done, false);
      const parts = [/** @type {Uint8Array} */ (first.value)];
      // nothing has released the held responses yet: the download cannot have completed
      assert.ok(ps.some((p) => p.held() > 0), 'no response was held');
      assert.ok(parts[0].byteLength > 0 && parts[0].byteLength <= 2 * HOLD_AT_BYTES, `first piece ${parts[0].byteLength} B`);
      assert.equal(records.length, 0, 'the frame reported a finished download before the release');
      for (const p of ps) p.release();
      for await (const part of body) parts.push(part);
      const all = Buffer.concat(parts);
      assert.equal(sha(all), sha(demoBytes(MB)));
      assert.ok(parts.length > 2, `${parts.length} parts`);
      assert.equal(records.length, 1);
      assert.equal(records[0].record.mode, mode);
      assert.equal(records[0].record.error, null);
    });
  }

  describe('ERR_NOT_MATCHED: the frame checks every request itself (any page can embed it)', () => {
    /** @param {object} settings */
    function harness(settings) {
      const posted = [];
      const downloads = [];
      /** @type {(string | null | undefined)[]} */
      const nexts = [];
      const client = { download: async (/** @type {string} */ url, /** @type {any} */ o) => { downloads.push(url); nexts.push(o.next); return { data: new Uint8Array([1, 2, 3]), stats: {} }; } };
      const server = createRequestServer({
        state: () => ({ settings, matches: compilePatterns(settings.patterns), client }),
        port: { postMessage: (m) => posted.push(m) }, toBackground: () => {}, logger: quiet,
      });
      return { posted, downloads, nexts, server };
    }

    it('refuses a URL outside the patterns without downloading it', async () => {
      const h = harness(settingsWith({}));
      await h.server.onPageMessage({ t: 'get', id: 7, url: 'http://elsewhere.test/media/x.bin', range: null });
      assert.deepEqual(h.downloads, []);
      assert.deepEqual(h.posted.map((m) => [m.t, m.id, m.code]), [['fail', 7, 'ERR_NOT_MATCHED']]);
    });

    it('refuses every URL when the extension is disabled', async () => {
      const h = harness(settingsWith({ enabled: false }));
      await h.server.onPageMessage({ t: 'get', id: 8, url: `${ORIGIN}/media/x.bin`, range: null });
      assert.deepEqual(h.downloads, []);
      assert.deepEqual(h.posted.map((m) => [m.t, m.code]), [['fail', 'ERR_NOT_MATCHED']]);
    });

    it('serves a matching URL (the refusals above are the check, not a broken path)', async () => {
      const h = harness(settingsWith({}));
      await h.server.onPageMessage({ t: 'get', id: 9, url: `${ORIGIN}/media/x.bin`, range: null });
      assert.deepEqual(h.downloads, [`${ORIGIN}/media/x.bin`]);
      assert.deepEqual(h.posted.map((m) => m.t), ['data', 'end']);
      assert.deepEqual([...new Uint8Array(h.posted[0].buf)], [1, 2, 3]);
    });

    it('passes the page\'s next segment file to the download, on the segment\'s own origin only', async () => {
      const h = harness(settingsWith({}));
      await h.server.onPageMessage({ t: 'get', id: 10, url: `${ORIGIN}/media/1.m4s`, range: null, next: `${ORIGIN}/media/2.m4s` });
      await h.server.onPageMessage({ t: 'get', id: 11, url: `${ORIGIN}/media/2.m4s`, range: null, next: 'http://elsewhere.test/media/3.m4s' });
      await h.server.onPageMessage({ t: 'get', id: 12, url: `${ORIGIN}/media/3.m4s`, range: null, next: 'javascript:alert(1)' });
      await h.server.onPageMessage({ t: 'get', id: 13, url: `${ORIGIN}/media/4.m4s`, range: null });
      assert.deepEqual(h.nexts, [`${ORIGIN}/media/2.m4s`, null, null, null]);
    });
  });

  describe('a manifest\'s init sections: the proxies fetch them before the player asks', () => {
    /** @param {object} settings @param {{held?: boolean}} [o]  held: a download runs until aborted */
    function harness(settings, { held = false } = {}) {
      /** @type {{ids: string[], urls: string[]}[]} */
      const prefetches = [];
      /** @type {string[]} the downloads' URLs */
      const downloads = [];
      /** @type {any[]} */
      const posted = [];
      /** @type {any[]} */
      const records = [];
      const listed = ['p0', 'p1', 'p2', 'p3', 'p4'].map((id) => ({ id, url: `http://${id}.test`, ticket: null }));
      const client = {
        download: async (/** @type {string} */ url, /** @type {{signal: AbortSignal}} */ o) => {
          downloads.push(url);
          if (held) await new Promise((_, reject) => o.signal.addEventListener('abort', () => reject(o.signal.reason)));
          return { data: new TextEncoder().encode(url), stats: { id: `r${downloads.length}`, url, mode: 'parallel-http' } };
        },
        prefetch: async (/** @type {{id: string}[]} */ list, /** @type {{url: string, range: {start: number, end: number} | null}[]} */ objects) => {
          prefetches.push({ ids: list.map((p) => p.id), urls: objects.map((o) => (o.range ? `${o.url} ${o.range.start}-${o.range.end}` : o.url)) });
          return [];
        },
      };
      const proxies = { list: async () => listed, invalidate() {} };
      const server = createRequestServer({
        state: () => ({ settings, matches: compilePatterns(settings.patterns), client, proxies }),
        port: { postMessage: (/** @type {any} */ m) => posted.push(m) }, toBackground: (/** @type {any} */ m) => { if (m.t === 'record') records.push(m); }, logger: quiet,
      });
      const seen = (/** @type {unknown} */ inits) => server.onPageMessage({ t: 'seen', kind: 'manifest', url: `${ORIGIN}/m.mpd`, segments: 0, templates: 2, inits });
      return { prefetches, downloads, posted, records, server, seen };
    }
    const whole = (/** @type {string} */ url) => ({ url, range: null });
    const settle = async () => { for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); };

    it('the first sections are downloaded ahead; a request for one gets that download, with no other, its record saying so; one never asked for has none', async () => {
      const h = harness(settingsWith({ detect: 'all-sites', n: 3 }));
      const urls = Array.from({ length: AHEAD_MAX_PER_PAGE + 1 }, (_, i) => `${ORIGIN}/r${i}/init.mp4`);
      await h.seen(urls.map(whole));
      await settle();
      assert.deepEqual(h.downloads, urls.slice(0, AHEAD_MAX_PER_PAGE));
      assert.deepEqual(h.prefetches, [{ ids: ['p0', 'p1', 'p2'], urls: urls.slice(AHEAD_MAX_PER_PAGE) }], 'the rest: the proxies fetch them');
      assert.deepEqual(h.posted, [], 'nothing goes to the page before it asks');
      assert.deepEqual(h.records, [], 'no record before a request takes the download');
      await h.server.onPageMessage({ t: 'get', id: 4, url: urls[1], range: null, how: 'player' });
      await settle();
      assert.equal(h.downloads.length, AHEAD_MAX_PER_PAGE, 'no second download');
      assert.deepEqual(h.posted.map((m) => [m.t, m.id]), [['data', 4], ['end', 4]]);
      assert.equal(new TextDecoder().decode(h.posted[0].buf), urls[1]);
      assert.deepEqual(h.records.map((m) => [m.record.url, m.record.ahead, m.record.segment, m.seen]), [[urls[1], true, 'player', 'player']]);
      await h.server.onPageMessage({ t: 'get', id: 5, url: urls[1], range: null, how: 'player' });
      await settle();
      assert.deepEqual(h.downloads.slice(AHEAD_MAX_PER_PAGE), [urls[1]], 'taken once: a second request downloads anew');
    });

    it('the page\'s abort of a request stops the download ahead it took', async () => {
      const h = harness(settingsWith({ detect: 'all-sites', n: 3 }), { held: true });
      const url = `${ORIGIN}/r0/init.mp4`;
      await h.seen([whole(url)]);
      await settle();
      await h.server.onPageMessage({ t: 'get', id: 4, url, range: null, how: 'player' });
      await settle();
      assert.deepEqual(h.records, [], 'running');
      await h.server.onPageMessage({ t: 'abort', id: 4, code: 'ERR_NO_PROGRESS' });
      await settle();
      assert.deepEqual(h.records.map((m) => [m.record.error?.code, m.record.error?.message, m.record.ahead, m.record.segment]),
        [['ERR_NO_PROGRESS', 'the page saw no progress and fetched directly', true, 'player']]);
      assert.equal(h.downloads.length, 1, 'no other download');
    });

    it('asks the proxies the downloads will use (the largest N), each object once per page; refuses what is not an http(s) URL or a byte range', async () => {
      const h = harness(settingsWith({ detect: 'all-sites', n: 3 }));
      await h.seen(Array.from({ length: AHEAD_MAX_PER_PAGE }, (_, i) => whole(`${ORIGIN}/r${i}/init.mp4`))); // downloaded ahead: the page's share
      await h.seen([whole(`${ORIGIN}/v/init.mp4`), whole('javascript:alert(1)'), whole(`${ORIGIN}/a/init.mp4`), 7, { url: `${ORIGIN}/one.mp4`, range: { start: 0, end: 1343 } }]);
      await h.seen([whole(`${ORIGIN}/v/init.mp4`), whole(`${ORIGIN}/v2/init.mp4`), { url: `${ORIGIN}/one.mp4`, range: { start: 0, end: 1343 } }]);
      await h.seen([{ url: `${ORIGIN}/one.mp4`, range: { start: 5, end: 2 } }, { url: `${ORIGIN}/one.mp4`, range: '0-9' }, { url: `${ORIGIN}/one.mp4`, range: { start: 0, end: 99 } }]);
      assert.deepEqual(h.prefetches, [
        { ids: ['p0', 'p1', 'p2'], urls: [`${ORIGIN}/v/init.mp4`, `${ORIGIN}/a/init.mp4`, `${ORIGIN}/one.mp4 0-1343`] },
        { ids: ['p0', 'p1', 'p2'], urls: [`${ORIGIN}/v2/init.mp4`] },
        { ids: ['p0', 'p1', 'p2'], urls: [`${ORIGIN}/one.mp4 0-99`] },
      ]);
    });

    it('none when the extension is off, or when only the patterns pass and these do not match', async () => {
      for (const s of [settingsWith({ detect: 'all-sites', enabled: false }), settingsWith({ detect: 'off' })]) {
        const h = harness(s);
        await h.seen([{ url: 'http://elsewhere.test/v/init.mp4', range: null }]);
        assert.deepEqual(h.prefetches, []);
      }
    });
  });
});
