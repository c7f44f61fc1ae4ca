// Digest lists kept per proxy and URL: a second download of the same object's blocks asks no
// proxy for its list again and is still verified; the cache ages out and forgets. A range's
// list covers that range's blocks only, and the proxies fetch only those from the origin.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';
import { createDigestCache, withCurrentLists, DIGEST_CACHE_TTL_MS, DIGEST_CACHE_ENTRIES } from '../src/http/digest-cache.js';
import { testBytes } from '@mutp/testkit/mutp-harness';
import { BLOCK_BYTES, WHOLE_OBJECT_BLOCKS } from '@mutp/protocol';

const OBJECT_BYTES = 2 * 1024 * 1024;
const silent = { info() {}, warn() {}, error() {} };
const quiet = { warn() {} };

describe('HTTP modes: digest lists kept per proxy and URL', function () {
  this.timeout(60_000);
  const a = testBytes(OBJECT_BYTES, 21);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** the Range header of each origin request for /big.bin (null: the whole object) */
  /** @type {(string | null)[]} */
  const bigAsked = [];

  before(async () => {
    origin = http.createServer((req, res) => {
      if (req.url === '/big.bin') {
        // honours one closed Range, as media origins do
        bigAsked.push(req.headers.range ?? null);
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return res.writeHead(200, { 'content-length': String(a.byteLength) }).end(a);
        const start = Number(m[1]);
        const end = Math.min(Number(m[2]), a.byteLength - 1);
        return res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${a.byteLength}` }).end(a.subarray(start, end + 1));
      }
      if (req.url !== '/a.bin') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(a.byteLength) }).end(a);
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const { port } = /** @type {import('node:net').AddressInfo} */ (origin.address());
    originUrl = `http://127.0.0.1:${port}`;
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `d${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${port}`], logger: silent })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });

  for (const mode of ['parallel-http', 'range-http']) {
    it(`${mode}: a second range in the same blocks asks only the proxies whose list it has not got yet; a range elsewhere asks again; byte-exact and verified`, async () => {
      /** @type {string[]} */
      const asked = [];
      const f = /** @type {typeof fetch} */ ((input, init) => { asked.push(String(input)); return fetch(input, init); });
      const client = createClient({ origo: null, logger: quiet, fetch: f });
      const ps = proxies.map((p) => ({ id: p.id, url: p.url }));
      const lists = () => asked.filter((u) => /[?&]digests=1/.test(u)).length;
      try {
        const first = await client.download(`${originUrl}/a.bin`, { mode, proxies: ps, range: { start: 0, end: 300_000 } });
        assert.deepEqual(Buffer.from(first.data), Buffer.from(a.subarray(0, 300_001)));
        const afterFirst = lists();
        assert.ok(afterFirst <= ps.length, 'each proxy asked once for its list');
        const second = await client.download(`${originUrl}/a.bin`, { mode, proxies: ps, range: { start: 70_000, end: 250_000 } });
        assert.deepEqual(Buffer.from(second.data), Buffer.from(a.subarray(70_000, 250_001)));
        // the first download kept every list that came before it completed: a strict majority at least
        const majority = Math.floor(ps.length / 2) + 1;
        assert.ok(lists() - afterFirst <= ps.length - majority, `${lists() - afterFirst} lists asked again`);
        assert.equal(/** @type {any} */ (second.stats).verified, true);
        // blocks no kept list covers: the lists of that range are asked for (a parallel-http body carries its own)
        const third = await client.download(`${originUrl}/a.bin`, { mode, proxies: ps, range: { start: 700_000, end: 1_500_000 } });
        assert.deepEqual(Buffer.from(third.data), Buffer.from(a.subarray(700_000, 1_500_001)));
        assert.equal(/** @type {any} */ (third.stats).verified, true);
        if (mode === 'range-http') {
          // the file is read range after range: the lists cover 2 more of its lengths (blocks 10 to the object's end)
          assert.ok(asked.some((u) => /[?&]digests=1&span=655360-3145727(&|$)/.test(u)), 'the span list of blocks 10..47');
          const before = lists();
          const fourth = await client.download(`${originUrl}/a.bin`, { mode, proxies: ps, range: { start: 1_500_001, end: 2_000_000 } });
          assert.deepEqual(Buffer.from(fourth.data), Buffer.from(a.subarray(1_500_001, 2_000_001)));
          assert.equal(/** @type {any} */ (fourth.stats).verified, true);
          assert.ok(lists() - before <= ps.length - majority, `the next range's lists were kept: ${lists() - before} asked`);
        }
      } finally {
        client.close();
      }
    });
  }

  it('a range of an object larger than the proxies\' cap: each proxy fetches only its blocks from the origin, byte-exact and verified', async () => {
    const port = Number(new URL(originUrl).port);
    const capped = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `c${i}`, port: 0, host: '127.0.0.1', allowPrivate: true,
      allowedHosts: [`127.0.0.1:${port}`], maxObjectBytes: 600_000, readAhead: false, logger: silent }))); // read-ahead would add origin requests
    const client = createClient({ origo: null, logger: quiet });
    try {
      for (const [mode, range] of /** @type {const} */ ([['parallel-http', { start: 100_000, end: 399_999 }], ['range-http', { start: 1_000_000, end: 1_299_999 }]])) {
        bigAsked.length = 0;
        const got = await client.download(`${originUrl}/big.bin`, { mode, range, proxies: capped.map((p) => ({ id: p.id, url: p.url })) });
        assert.deepEqual(Buffer.from(got.data), Buffer.from(a.subarray(range.start, range.end + 1)), mode);
        assert.equal(/** @type {any} */ (got.stats).verified, true, mode);
        const aligned = `bytes=${Math.floor(range.start / 65536) * 65536}-${Math.ceil((range.end + 1) / 65536) * 65536 - 1}`;
        // never the whole file; range-http, reading on in a file whose lists are kept, first asks for
        // the blocks ahead too, which pass the 600,000-byte cap: then for its own blocks only
        assert.ok(bigAsked.length >= 2 && bigAsked.every((r) => r !== null) && bigAsked.slice(-2).every((r) => r === aligned), `${mode}: the origin was asked ${JSON.stringify(bigAsked)}`);
      }
    } finally {
      client.close();
      await Promise.all(capped.map((p) => p.close()));
    }
  });

  it('keepDigestLists: false asks every proxy for its list on every download, still byte-exact and verified', async () => {
    /** @type {string[]} */
    const asked = [];
    const f = /** @type {typeof fetch} */ ((input, init) => { asked.push(String(input)); return fetch(input, init); });
    const client = createClient({ origo: null, logger: quiet, fetch: f, keepDigestLists: false });
    const ps = proxies.map((p) => ({ id: p.id, url: p.url }));
    const lists = () => asked.filter((u) => /[?&]digests=1/.test(u)).length;
    try {
      await client.download(`${originUrl}/a.bin`, { mode: 'range-http', proxies: ps, range: { start: 0, end: 300_000 } });
      const afterFirst = lists();
      assert.ok(afterFirst >= 1);
      const second = await client.download(`${originUrl}/a.bin`, { mode: 'range-http', proxies: ps, range: { start: 0, end: 300_000 } });
      assert.deepEqual(Buffer.from(second.data), Buffer.from(a.subarray(0, 300_001)));
      assert.equal(/** @type {any} */ (second.stats).verified, true);
      assert.ok(lists() - afterFirst >= Math.floor(ps.length / 2) + 1, `the second download asked ${lists() - afterFirst} lists again`);
    } finally {
      client.close();
    }
  });

  it('a kept list ages out after the TTL; the oldest goes past the size limit; forget drops a URL', () => {
    let t = 0;
    const c = createDigestCache({ now: () => t });
    const list = { objectBytes: 1, firstBlock: 0, digests: new Uint8Array(8) };
    const all = WHOLE_OBJECT_BLOCKS;
    c.set('http://p1', 'http://o/a', list);
    c.set('http://p2', 'http://o/a', list);
    c.set('http://p1', 'http://o/b', list);
    assert.equal(c.get('http://p1', 'http://o/a', all), list);
    c.forget('http://o/a');
    assert.equal(c.get('http://p1', 'http://o/a', all), null);
    assert.equal(c.get('http://p2', 'http://o/a', all), null);
    assert.equal(c.get('http://p1', 'http://o/b', all), list);
    t = DIGEST_CACHE_TTL_MS + 1;
    assert.equal(c.get('http://p1', 'http://o/b', all), null);
    for (let i = 0; i <= DIGEST_CACHE_ENTRIES; i++) c.set('http://p', `http://o/${i}`, list);
    assert.equal(c.size(), DIGEST_CACHE_ENTRIES);
    assert.equal(c.get('http://p', 'http://o/0', all), null, 'the oldest was dropped');
  });

  it('a kept span list serves only downloads whose blocks it covers', () => {
    const c = createDigestCache({ now: () => 0 });
    const span = { objectBytes: 10 * BLOCK_BYTES, firstBlock: 3, digests: new Uint8Array(4 * 8) }; // blocks 3..6
    c.set('http://p', 'http://o/a', span);
    assert.equal(c.get('http://p', 'http://o/a', { first: 3, end: 7 }), span);
    assert.equal(c.get('http://p', 'http://o/a', { first: 4, end: 5 }), span);
    assert.equal(c.get('http://p', 'http://o/a', { first: 2, end: 5 }), null);
    assert.equal(c.get('http://p', 'http://o/a', { first: 5, end: 8 }), null);
    assert.equal(c.get('http://p', 'http://o/a', WHOLE_OBJECT_BLOCKS), null);
    const tail = { objectBytes: 10 * BLOCK_BYTES - 5, firstBlock: 8, digests: new Uint8Array(2 * 8) }; // blocks 8, 9: the object's end
    c.set('http://p', 'http://o/a', tail);
    assert.equal(c.get('http://p', 'http://o/a', { first: 9, end: 40 }), tail, 'a span past the object\'s end is covered to the end');
  });

  it('withCurrentLists runs a download again without its kept lists only when they voted, it failed on integrity, and nothing was handed out', async () => {
    const list = { objectBytes: 1, firstBlock: 0, digests: new Uint8Array(8) };
    const liars = Object.assign(new Error('all failed'), { code: 'ERR_ALL_PROXIES_FAILED', perProxy: [{ error: { code: 'ERR_INTEGRITY' } }] });
    const gone = Object.assign(new Error('all failed'), { code: 'ERR_ALL_PROXIES_FAILED', perProxy: [{ error: { code: 'ERR_ORIGIN_STATUS' } }] });
    const args = { url: 'http://o/a', proxies: [{ url: 'http://p' }] };
    /** @param {Error} first @param {number} [handOut] bytes handed out before failing */
    const attempts = async (first, handOut = 0, keep = true) => {
      const c = createDigestCache({ now: () => 0 });
      if (keep) c.set('http://p', 'http://o/a', list);
      let n = 0;
      /** @param {{onProgress?: (p: {netBytes: number}) => void}} a */
      const run = async (a) => {
        n++;
        if (n > 1) return 'ok';
        if (handOut) a.onProgress?.({ netBytes: handOut });
        throw first;
      };
      const outcome = await withCurrentLists(run, args, c, { warn() {} }).catch((e) => e.code);
      return { n, outcome, kept: c.keeps('http://p', 'http://o/a') };
    };
    assert.deepEqual(await attempts(liars), { n: 2, outcome: 'ok', kept: false });
    assert.deepEqual(await attempts(Object.assign(new Error('u'), { code: 'ERR_INTEGRITY_UNRESOLVED' })), { n: 2, outcome: 'ok', kept: false });
    assert.deepEqual(await attempts(liars, 65536), { n: 1, outcome: 'ERR_ALL_PROXIES_FAILED', kept: true }, 'bytes handed out: not again');
    assert.deepEqual(await attempts(gone), { n: 1, outcome: 'ERR_ALL_PROXIES_FAILED', kept: true }, 'not an integrity failure');
    assert.deepEqual(await attempts(liars, 0, false), { n: 1, outcome: 'ERR_ALL_PROXIES_FAILED', kept: false }, 'no kept list voted');
  });
});
