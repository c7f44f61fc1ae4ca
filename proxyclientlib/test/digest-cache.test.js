// Digest lists kept per proxy and URL: a second download of another range of the same object
// asks no proxy for its list again and is still verified; the cache ages out and forgets.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';
import { createDigestCache, DIGEST_CACHE_TTL_MS, DIGEST_CACHE_ENTRIES } from '../src/http/digest-cache.js';
import { testBytes } from '@mutp/testkit/mutp-harness';

const OBJECT_BYTES = 2 * 1024 * 1024;
const silent = { info() {}, warn() {}, error() {} };
const quiet = { warn() {} };

describe('HTTP modes: digest lists kept per proxy and URL', function () {
  this.timeout(60_000);
  const a = testBytes(OBJECT_BYTES, 21);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];

  before(async () => {
    origin = http.createServer((req, res) => {
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
    it(`${mode}: the second range of an object asks only the proxies whose list it has not got yet, byte-exact and verified`, async () => {
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
        const second = await client.download(`${originUrl}/a.bin`, { mode, proxies: ps, range: { start: 700_000, end: 1_500_000 } });
        assert.deepEqual(Buffer.from(second.data), Buffer.from(a.subarray(700_000, 1_500_001)));
        // the first download kept every list that came before it completed: a strict majority at least
        const majority = Math.floor(ps.length / 2) + 1;
        assert.ok(lists() - afterFirst <= ps.length - majority, `${lists() - afterFirst} lists asked again`);
        assert.equal(/** @type {any} */ (second.stats).verified, true);
      } finally {
        client.close();
      }
    });
  }

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
    const list = { objectBytes: 1, digests: new Uint8Array(8) };
    c.set('http://p1', 'http://o/a', list);
    c.set('http://p2', 'http://o/a', list);
    c.set('http://p1', 'http://o/b', list);
    assert.equal(c.get('http://p1', 'http://o/a'), list);
    c.forget('http://o/a');
    assert.equal(c.get('http://p1', 'http://o/a'), null);
    assert.equal(c.get('http://p2', 'http://o/a'), null);
    assert.equal(c.get('http://p1', 'http://o/b'), list);
    t = DIGEST_CACHE_TTL_MS + 1;
    assert.equal(c.get('http://p1', 'http://o/b'), null);
    for (let i = 0; i <= DIGEST_CACHE_ENTRIES; i++) c.set('http://p', `http://o/${i}`, list);
    assert.equal(c.size(), DIGEST_CACHE_ENTRIES);
    assert.equal(c.get('http://p', 'http://o/0'), null, 'the oldest was dropped');
  });
});
