import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { createClient } from '../index.js';
import { demoBytes } from '@mutp/demo/media';
import { startFakeProxy } from '@mutp/testkit/fake-proxy';
import { BLOCK_BYTES, CHECKSUM_ENTRY_BYTES, blockCount, firstShareCapBlocks, shareOf, shareWeights } from '@mutp/protocol/http';

const ORIGIN = 'http://origin.test'; // the fake proxy never fetches it; it serves demo bytes by path
const sha = (b) => createHash('sha256').update(b).digest('hex');
const quiet = { warn: () => {} };

describe('HTTP modes (fake proxies)', function () {
  const started = [];
  const proxy = async (o) => { const p = await startFakeProxy(o); started.push(p); return p; };
  afterEach(async () => { await Promise.all(started.splice(0).map((p) => p.close())); });
  const client = () => createClient({ origo: null, logger: quiet });

  it('warmHttp opens a connection to each proxy, and the download after it starts on that connection', async () => {
    const ps = [await proxy(), await proxy()];
    const c = client();
    const refs = ps.map((p, i) => ({ id: `p${i}`, url: `${p.url}/` }));
    assert.deepEqual(await c.warmHttp(refs), [{ id: 'p0', ok: true, code: null }, { id: 'p1', ok: true, code: null }]);
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r)); // the connection goes back to the pool (a page asks later still)
    const { data } = await c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', proxies: refs, log: false });
    assert.equal(sha(data), sha(demoBytes(1 << 20)));
    for (const p of ps) {
      assert.equal(p.requests[0].path, '/healthz');
      const firstFetch = p.requests.findIndex((r) => r.path === '/fetch');
      assert.equal(p.requestConnections[firstFetch], p.requestConnections[0], 'the first /fetch came on the warmed connection');
    }
  });

  it('warmHttp: a proxy that is not there is an outcome with its code, never a rejection', async () => {
    const p = await proxy();
    const out = await client().warmHttp([{ id: 'p0', url: p.url }, { id: 'gone', url: 'http://127.0.0.1:9/' }]);
    assert.deepEqual(out.map((o) => [o.id, o.ok]), [['p0', true], ['gone', false]]);
    assert.equal(typeof out[1].code, 'string');
  });

  it('warmHttp does not try a proxy this context may not fetch (blocked), and says why', async () => {
    const p = await proxy();
    const c = createClient({ origo: null, logger: quiet, blocked: (url) => (url.startsWith(p.url) ? { code: 'ERR_MIXED_CONTENT_BLOCKED', message: 'test' } : null) });
    assert.deepEqual(await c.warmHttp([{ id: 'p0', url: p.url }]), [{ id: 'p0', ok: false, code: 'ERR_MIXED_CONTENT_BLOCKED' }]);
    assert.deepEqual(p.requests, []);
  });

  for (const mode of ['parallel-http', 'range-http']) {
    describe(mode, () => {
      for (const { name, size } of [{ name: '1B', size: 1 }, { name: '1MB', size: 1 << 20 }, { name: '3KB', size: 3072 }]) {
        it(`downloads demo-${name} byte-exact from 3 proxies`, async () => {
          const ps = [await proxy(), await proxy(), await proxy()];
          const { data, stats } = await client().download(`${ORIGIN}/media/demo-${name}.bin`, { mode, proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
          assert.equal(sha(data), sha(demoBytes(size)));
          assert.equal(stats.mode, mode);
          assert.equal(stats.n, 3);
          assert.equal(stats.netBytes, size);
          assert.ok(stats.grossBytes >= size, 'gross counts every received byte');
          assert.equal(stats.error, null);
          assert.deepEqual(stats.proxyIds, ['p0', 'p1', 'p2']);
        });
      }

      it('downloads an inclusive byte range', async () => {
        const ps = [await proxy(), await proxy()];
        const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, range: '1000-300999', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
        assert.equal(sha(data), sha(demoBytes(1 << 20).subarray(1000, 301000)));
      });

      it('completes when one proxy dies mid-body', async () => {
        const ps = [await proxy({ dieAfterBytes: 100_000 }), await proxy()];
        const { data, stats } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
        assert.equal(sha(data), sha(demoBytes(1 << 20)));
        assert.equal(stats.error, null);
      });

      it('rejects with ERR_ALL_PROXIES_FAILED, keeping each proxy error code', async () => {
        const ps = [await proxy({ error: { status: 403, code: 'ERR_HOST_NOT_ALLOWED' } }), await proxy({ dieAfterBytes: 10 })];
        const err = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) }).then(() => null, (e) => e);
        assert.ok(err, 'must reject');
        assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
        assert.equal(err.stats.error.code, 'ERR_ALL_PROXIES_FAILED');
        assert.equal(err.stats.perProxy[0].error.code, 'ERR_HOST_NOT_ALLOWED');
        assert.ok(err.stats.perProxy[1].error.code.startsWith('ERR_PROXY_'));
      });

      it('treats a proxy that stops sending as failed (stall timer)', async () => {
        const ps = [await proxy({ stall: true })];
        const err = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, stallTimeoutMs: 200, proxies: [{ id: 'p0', url: ps[0].url }] }).then(() => null, (e) => e);
        assert.equal(err?.code, 'ERR_ALL_PROXIES_FAILED');
        assert.equal(err.stats.perProxy[0].error.code, 'ERR_PROXY_STALLED');
      });

      it('waits past the stall timer for a proxy still fetching the object from its origin (its answer\'s head comes late), byte-exact', async () => {
        const ps = [await proxy({ headDelayMs: 600 })];
        const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, stallTimeoutMs: 200, proxies: [{ id: 'p0', url: ps[0].url }] });
        assert.equal(sha(data), sha(demoBytes(1 << 20)));
      });

      it('stops with ERR_ABORTED when the caller aborts', async () => {
        const ps = [await proxy({ stall: true })];
        const ctrl = new AbortController();
        setTimeout(() => ctrl.abort(), 100);
        const err = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, signal: ctrl.signal, proxies: [{ id: 'p0', url: ps[0].url }] }).then(() => null, (e) => e);
        assert.equal(err?.code, 'ERR_ABORTED');
      });
    });
  }

  it('parallel-http: a proxy that ignores Range still yields the asked range', async () => {
    const p = await proxy({ ignoreRange: true });
    const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', range: { start: 5, end: 9 }, proxies: [{ id: 'a', url: p.url }] });
    assert.deepEqual([...data], [...demoBytes(1 << 20).subarray(5, 10)]);
  });

  it('parallel-http: sends the same requests to every proxy: the range widened to whole 64 KiB blocks, and its digest list', async () => {
    const ps = [await proxy(), await proxy()];
    const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', range: '70000-70099', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.deepEqual([...data], [...demoBytes(1 << 20).subarray(70_000, 70_100)]);
    for (const p of ps) {
      // two proxies' bytes that agree are a majority on their own: the download may end before a list is asked
      const [body, ...lists] = [...p.requests].sort((a, b) => Number(!!a.digests) - Number(!!b.digests));
      assert.deepEqual(body, { path: '/fetch', url: `${ORIGIN}/media/demo-1MB.bin`, range: 'bytes=65536-131071' });
      for (const l of lists) assert.deepEqual(l, { path: '/fetch', url: `${ORIGIN}/media/demo-1MB.bin`, range: null, digests: true });
    }
  });

  it('range-http: splits the object over the proxies', async () => {
    const ps = [await proxy(), await proxy()];
    const { stats } = await client().download(`${ORIGIN}/media/demo-5MB.bin`, { mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.ok(stats.perProxy.every((s) => s.bytes > 0), 'both proxies served bytes');
    assert.ok(stats.grossBytes < 2 * 5 * 1024 * 1024, 'not every byte came twice');
    assert.equal(stats.serverFetchMs, 12.5, 'server fetch time from Server-Timing');
  });

  it('range-http: a small object goes out at once, one request per proxy (its list and its share, by the rates Origo advertised)', async () => {
    const ps = [await proxy(), await proxy(), await proxy()];
    const rates = [2 * 917504, 917504, 917504];
    const { data, stats } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, {
      mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url, uploadRateBps: rates[i] })),
    });
    assert.equal(sha(data), sha(demoBytes(1 << 20)));
    assert.deepEqual(ps.map((p) => p.requests), ps.map((_, i) => [{ path: '/fetch', url: `${ORIGIN}/media/demo-1MB.bin`, range: null, share: i }]));
    assert.deepEqual(stats.perProxy.map((s) => s.bytes), [524288, 262144, 262144]);
  });

  it('parallel-http with blocks hashed off the thread: each block is hashed once, its copies from the other proxies compared with it', async () => {
    const ps = [await proxy(), await proxy(), await proxy(), await proxy()];
    /** @type {number[]} */
    const hashedBytes = [];
    const countedHash = async (/** @type {Uint8Array} */ bytes) => {
      hashedBytes.push(bytes.length);
      await new Promise((r) => setTimeout(r, 5)); // the other copies come in while it is under way
      return createHash('sha256').update(bytes).digest().subarray(0, CHECKSUM_ENTRY_BYTES);
    };
    const c = createClient({ origo: null, logger: quiet, checksumAsync: countedHash });
    const { data, stats } = await c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.equal(sha(data), sha(demoBytes(1 << 20)));
    assert.equal(stats.verified, true);
    assert.ok(ps.every((p) => p.requests.some((r) => r.path === '/fetch' && r.range === null)), 'every proxy was asked the whole object');
    assert.equal(hashedBytes.length, blockCount(1 << 20), 'one hash per block');
    assert.equal(hashedBytes.reduce((a, b) => a + b, 0), 1 << 20);
  });

  it('parallel-http with blocks hashed off the thread: a copy that comes after its block was delivered is compared with it, not hashed', async () => {
    const HALF = 512 * 1024; // blocks 0-7
    const LATE_MS = 1000; // the late proxy answers long after the others delivered the first half (~10 ms on loopback)
    const ps = [await proxy({ holdAfterBytes: HALF }), await proxy({ headDelayMs: LATE_MS }), await proxy({ holdAfterBytes: HALF })];
    /** @type {number[]} */
    const hashedAt = [];
    const c = createClient({ origo: null, logger: quiet, checksumAsync: async (bytes) => {
      hashedAt.push(Date.now());
      return createHash('sha256').update(bytes).digest().subarray(0, CHECKSUM_ENTRY_BYTES);
    } });
    const t0 = Date.now();
    const { data, stats } = await c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    for (const p of ps) p.release();
    assert.equal(sha(data), sha(demoBytes(1 << 20)));
    assert.equal(stats.verified, true);
    // the first half hashed once from the early proxies, the second once from the late one, which alone has it
    assert.equal(hashedAt.length, blockCount(1 << 20));
    assert.equal(hashedAt.filter((t) => t - t0 >= LATE_MS).length, blockCount(1 << 20) / 2, 'the late proxy\'s copies of the delivered half were not hashed');
  });

  it('range-http with blocks hashed off the thread (a browser\'s WebCrypto): a block whose hash is under way is waited for, not asked again', async () => {
    const ps = [await proxy(), await proxy(), await proxy()];
    const slowHash = async (/** @type {Uint8Array} */ bytes) => {
      await new Promise((r) => setTimeout(r, 30)); // every hash comes back after the bodies ended
      return createHash('sha256').update(bytes).digest().subarray(0, CHECKSUM_ENTRY_BYTES);
    };
    const c = createClient({ origo: null, logger: quiet, checksumAsync: slowHash });
    const rates = [2 * 917504, 917504, 917504]; // shares of 8, 4 and 4 blocks: none ends after the others
    const { data, stats } = await c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url, uploadRateBps: rates[i] })) });
    assert.equal(sha(data), sha(demoBytes(1 << 20)));
    assert.equal(stats.verified, true);
    assert.deepEqual(ps.map((p) => p.requests[0].share), [0, 1, 2], 'each proxy\'s list and share in its first request');
    // A busy machine may make a share late enough for the tail to copy it to an idle proxy: a copy
    // of that share (or of its rest). Blocks asked again because their hashes were under way are the
    // blocks of every share, asked in runs across them.
    const shares = [0, 1, 2].map((i) => shareOf(blockCount(1 << 20), shareWeights(rates), firstShareCapBlocks(), i));
    const extra = ps.flatMap((p) => p.requests.slice(1)).map((r) => /^bytes=(\d+)-(\d+)$/.exec(r.range ?? '')).map((m) => m && [Number(m[1]), Number(m[2])]);
    const withinAShare = (/** @type {number[] | null} */ r) => r !== null && shares.some((sh) => r[0] >= sh.start * BLOCK_BYTES && r[1] < sh.end * BLOCK_BYTES);
    assert.deepEqual(extra.filter((r) => !withinAShare(r)), [], 'no request but a copy of one share');
  });

  it('range-http: a proxy whose share is not the one the agreed size gives is failed (ERR_PROXY_BAD_RESPONSE); the others deliver', async () => {
    const ps = [await proxy(), await proxy({ shiftShare: true }), await proxy()];
    const { data, stats } = await client().download(`${ORIGIN}/media/demo-5MB.bin`, { mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.equal(sha(data), sha(demoBytes(5 << 20)));
    assert.equal(stats.perProxy[1].error?.code, 'ERR_PROXY_BAD_RESPONSE');
    assert.equal(ps[1].requests.length, 1, 'no range after its share');
  });

  it('range-http: proxies that predate first shares still serve the ranges (their lists asked apart)', async () => {
    const ps = [await proxy({ noShares: true }), await proxy({ noShares: true }), await proxy()];
    const { data } = await client().download(`${ORIGIN}/media/demo-5MB.bin`, { mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.equal(sha(data), sha(demoBytes(5 << 20)));
    for (const p of ps.slice(0, 2)) {
      assert.ok(p.requests.some((r) => r.digests) && p.requests.some((r) => r.range !== null), 'an old proxy: its list asked, then its ranges');
    }
  });

  it('range-http: once a proxy\'s round trip is known, its ranges last many of them (few requests, each paying one)', async () => {
    // every answer's head comes 30 ms after its request; the bytes then flow at loopback speed,
    // so ranges sized by rate alone (256 KiB) would take ~10 requests per proxy, each waiting 30 ms
    const ps = [await proxy({ headDelayMs: 30 }), await proxy({ headDelayMs: 30 })];
    const { data } = await client().download(`${ORIGIN}/media/demo-5MB.bin`, { mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })) });
    assert.equal(sha(data), sha(demoBytes(5 << 20)));
    for (const [i, p] of ps.entries()) {
      const ranges = p.requests.filter((r) => !r.digests).length;
      assert.ok(ranges >= 1 && ranges <= 3, `proxy ${i}: ${ranges} range requests`);
    }
  });

  it('range-http: each proxy gets its list and first share and then its ranges on one TCP connection', async () => {
    // the third proxy's list and share come once the others' ranges are under way: its own ranges
    // must wait for it instead of opening a second connection, and its share stays its own
    /** @type {(v?: unknown) => void} */
    let openGate = () => {};
    const gate = new Promise((r) => { openGate = r; });
    const ps = [await proxy(), await proxy(), await proxy({ digestGate: gate })];
    const { data, stats } = await client().download(`${ORIGIN}/media/demo-5MB.bin`, {
      mode: 'range-http', proxies: ps.map((p, i) => ({ id: `p${i}`, url: p.url })), onProgress: () => openGate(),
    });
    assert.equal(sha(data), sha(demoBytes(5 << 20)));
    // 80 blocks, 3 equal shares capped at 12 blocks: the late proxy's [24, 36) waited for it
    assert.ok(stats.perProxy[2].bytes >= 12 * 65536, `the late proxy served its share (${stats.perProxy[2].bytes} bytes)`);
    for (const [i, p] of ps.entries()) {
      const conns = p.requestConnections;
      assert.equal(p.requests[0].share, i, `proxy ${i}: its list and first share first`);
      // a range that lost the tail's race is aborted, and HTTP/1.1 can only abort by closing: the
      // proxy's next request (a last duplicate, if any) then needs a new connection
      const lastOnFirst = conns.lastIndexOf(1);
      assert.ok(lastOnFirst >= 0 && conns.slice(0, lastOnFirst).every((c) => c === 1) && conns.length - lastOnFirst <= 2,
        `proxy ${i}: requests on connections ${conns.join(',')}`);
    }
  });

  it('a download given Origo\'s list already (listing) uses it: no lookup of its own, its lookup time counted from the listing\'s start', async () => {
    const ps = [await proxy(), await proxy()];
    let lookups = 0;
    const origo = http.createServer((req, res) => { lookups++; res.writeHead(500).end(); });
    await new Promise((r) => origo.listen(0, '127.0.0.1', () => r(undefined)));
    try {
      const c = createClient({ origo: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (origo.address()).port}`, logger: quiet });
      const entries = ps.map((p, i) => ({ id: `p${i}`, url: p.url, location: null, uploadRateBps: null, activeSessions: null, ticket: null }));
      const listing = { startedAt: performance.now() - 40, list: Promise.resolve(entries) }; // asked 40 ms ago
      const { data, stats } = await c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'range-http', proxies: 2, listing, log: false });
      assert.equal(sha(data), sha(demoBytes(1 << 20)));
      assert.deepEqual(stats.proxyIds, ['p0', 'p1']);
      assert.equal(lookups, 0);
      assert.ok(stats.requestSteps.lookupMs >= 40, `lookupMs ${stats.requestSteps.lookupMs}`);
      const failed = { startedAt: performance.now(), list: Promise.reject(Object.assign(new Error('down'), { code: 'ERR_ORIGO_UNREACHABLE' })) };
      failed.list.catch(() => {});
      await assert.rejects(c.download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'range-http', proxies: 2, listing: failed, log: false }), { code: 'ERR_ORIGO_UNREACHABLE' });
      assert.equal(lookups, 0);
    } finally {
      await new Promise((r) => origo.close(r));
    }
  });

  it('refuses bad input with codes', async () => {
    const c = client();
    await assert.rejects(c.download('ftp://x/y', { mode: 'parallel-http', proxies: [{ id: 'a', url: 'http://127.0.0.1:1' }] }), { code: 'ERR_BAD_URL' });
    await assert.rejects(c.download(`${ORIGIN}/a`, { mode: 'tcp', proxies: [] }), { code: 'ERR_BAD_MODE' });
    await assert.rejects(c.download(`${ORIGIN}/a`, { mode: 'parallel-http', range: '9-1', proxies: [] }), { code: 'ERR_BAD_RANGE' });
    await assert.rejects(c.download(`${ORIGIN}/a`, { mode: 'parallel-http', proxies: [] }), { code: 'ERR_NO_PROXIES' });
    await assert.rejects(c.download(`${ORIGIN}/a`, { mode: 'parallel-http', proxies: 2 }), { code: 'ERR_NO_ORIGO' });
  });
});
