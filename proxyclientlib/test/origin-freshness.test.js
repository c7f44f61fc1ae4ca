// An origin that replaces a file, through real proxies on loopback, in every mode: the proxies
// keep a copy only as long as the origin's caching fields allow, so the next download after a
// replacement has the new bytes (before, a proxy served its first copy for as long as its cache
// held it). A copy within its max-age is served without asking the origin; one marked no-cache is
// asked about with its ETag each time (a 304 costs no body); a no-store one is fetched again.
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';

const MODES = /** @type {const} */ (['parallel-http', 'range-http', 'uncoded', 'coded']);
const BODY_BYTES = 300_000;
const silent = { info() {}, warn() {}, error() {} };
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

/** The object's bytes at a version (each version differs at every block). @param {string} path @param {number} version */
function body(path, version) {
  const out = Buffer.alloc(BODY_BYTES);
  let x = (version * 7919 + path.length * 104729) >>> 0 || 1;
  for (let i = 0; i < BODY_BYTES; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

describe('ProxyClientLib: an origin that replaces a file, through real proxies', function () {
  this.timeout(60_000);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** path → its version now */
  const versions = new Map();
  /** what the origin was asked, per path: full answers (200) and 304s */
  /** @type {Map<string, { full: number, notModified: number }>} */
  const asked = new Map();

  before(async () => {
    origin = http.createServer((req, res) => {
      const path = String(req.url).split('?')[0];
      const fields = path.startsWith('/no-cache') ? { 'cache-control': 'no-cache' }
        : path.startsWith('/no-store') ? { 'cache-control': 'no-store' }
          : path.startsWith('/max-age') ? { 'cache-control': 'public, max-age=3600' } : null;
      if (!fields) return res.writeHead(404).end();
      const version = versions.get(path) ?? 1;
      const etag = `"${path}-${version}"`;
      const count = asked.get(path) ?? { full: 0, notModified: 0 };
      asked.set(path, count);
      if (req.headers['if-none-match'] === etag) {
        count.notModified++;
        return res.writeHead(304, { etag, ...fields }).end();
      }
      count.full++;
      res.writeHead(200, { 'content-type': 'video/iso.segment', 'content-length': String(BODY_BYTES), etag, ...fields });
      res.end(body(path, version));
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    originUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (origin.address()).port}`;
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `p${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [new URL(originUrl).host], logger: silent })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });

  /** @param {string} mode @param {string} path */
  async function download(mode, path) {
    const client = createClient({ origo: null, logger: { warn() {} } });
    try {
      const { data } = await client.download(`${originUrl}${path}`, { mode: /** @type {any} */ (mode), proxies: proxies.map((p, i) => ({ id: `p${i}`, url: p.url })) });
      return sha(data);
    } finally {
      client.close();
    }
  }

  for (const mode of MODES) {
    it(`${mode}: no-cache with an ETag: unchanged, the proxies ask and get 304s; replaced, the next download has the new bytes`, async () => {
      const path = `/no-cache-${mode}.bin`;
      assert.equal(await download(mode, path), sha(body(path, 1)));
      const first = { ...asked.get(path) };
      assert.equal(await download(mode, path), sha(body(path, 1)));
      const second = /** @type {{ full: number, notModified: number }} */ (asked.get(path));
      assert.equal(second.full, first.full, 'unchanged: no body fetched again');
      assert.ok(second.notModified >= 1, 'the copies were asked about');
      versions.set(path, 2);
      assert.equal(await download(mode, path), sha(body(path, 2)));
    });

    it(`${mode}: no-store: nothing kept to ask about (no conditional request); replaced, the next download has the new bytes`, async () => {
      const path = `/no-store-${mode}.bin`;
      assert.equal(await download(mode, path), sha(body(path, 1)));
      assert.equal(await download(mode, path), sha(body(path, 1)));
      assert.equal(asked.get(path)?.notModified, 0, 'no copy was kept, so none was asked about');
      versions.set(path, 2);
      assert.equal(await download(mode, path), sha(body(path, 2)));
    });
  }

  for (const mode of /** @type {const} */ (['range-http', 'parallel-http'])) {
    it(`${mode}: one client, ranges of an object replaced between them: the lists it kept of the old one are dropped, not taken for lies`, async () => {
      const path = `/no-cache-ranges-${mode}.bin`;
      const client = createClient({ origo: null, logger: { warn() {} } });
      const refs = proxies.map((p, i) => ({ id: `p${i}`, url: p.url }));
      try {
        const first = await client.download(`${originUrl}${path}`, { mode, proxies: refs, range: { start: 0, end: 200_000 } });
        assert.equal(sha(first.data), sha(body(path, 1).subarray(0, 200_001)));
        versions.set(path, 2);
        const second = await client.download(`${originUrl}${path}`, { mode, proxies: refs, range: { start: 0, end: 100_000 } });
        assert.equal(sha(second.data), sha(body(path, 2).subarray(0, 100_001)));
        assert.deepEqual(second.stats.perProxy.map((/** @type {any} */ p) => p.error?.code ?? null), refs.map(() => null), 'no proxy named a liar');
      } finally {
        client.close();
      }
    });
  }

  it('max-age: within it, the proxies serve their copies without asking the origin (a replacement shows after it)', async () => {
    const path = '/max-age.bin';
    assert.equal(await download('range-http', path), sha(body(path, 1)));
    const before = { ...asked.get(path) };
    versions.set(path, 2);
    assert.equal(await download('coded', path), sha(body(path, 1)));
    assert.deepEqual(asked.get(path), before);
  });
});
