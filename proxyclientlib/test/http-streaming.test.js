// The HTTP modes stream the body through onProgress `chunks`, like the MUTP driver: each byte
// of the result once, at its offset, and before the download completes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createClient } from '../index.js';
import { createPieceSet } from '../src/http/body-pieces.js';
import { demoBytes } from '@mutp/demo/media';
import { startFakeProxy } from '@mutp/testkit/fake-proxy';

const ORIGIN = 'http://origin.test'; // the fake proxy serves demo bytes by path
const MB = 1 << 20;
const HOLD_AT_BYTES = 100_000; // the held proxies send this much of each response, then wait for the test (range-http's ranges start at 256 KiB)
const STALL_MS = 3000; // a held response that is never released fails the download with ERR_PROXY_STALLED instead of hanging
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const quiet = { warn: () => {} };

/**
 * Collects the pieces a download streams (copied at once, as the contract says) and the order of events.
 */
function collector() {
  /** @type {{offset: number, bytes: Uint8Array}[]} */
  const pieces = [];
  /** @type {string[]} */
  const events = [];
  const netSeen = [];
  return {
    pieces, events, netSeen,
    /** @param {any} p */
    onProgress: (p) => {
      assert.ok(Array.isArray(p.chunks), 'every progress report carries chunks');
      for (const c of p.chunks) {
        pieces.push({ offset: c.offset, bytes: c.bytes.slice() });
        events.push('piece');
      }
      netSeen.push(p.netBytes);
    },
  };
}

/**
 * The pieces, sorted by offset, must tile [0, want.length) exactly (no gap, no overlap) and hold `want`.
 * @param {{offset: number, bytes: Uint8Array}[]} pieces
 * @param {Uint8Array} want
 */
function assertTiles(pieces, want) {
  const sorted = [...pieces].sort((a, b) => a.offset - b.offset);
  let at = 0;
  for (const p of sorted) {
    assert.ok(p.bytes.byteLength > 0, 'an empty piece');
    assert.equal(p.offset, at, p.offset < at ? `overlap at ${p.offset} (already had up to ${at})` : `gap ${at}..${p.offset}`);
    at += p.bytes.byteLength;
  }
  assert.equal(at, want.length, 'the pieces do not reach the end');
  const all = new Uint8Array(at);
  for (const p of sorted) all.set(p.bytes, p.offset);
  assert.equal(sha(all), sha(want), 'the pieces differ from the object');
}

describe('HTTP modes stream the body (onProgress chunks)', function () {
  this.timeout(60_000);
  const started = [];
  const proxy = async (o) => { const p = await startFakeProxy(o); started.push(p); return p; };
  afterEach(async () => { await Promise.all(started.splice(0).map((p) => p.close())); });
  const client = () => createClient({ origo: null, logger: quiet });
  const refs = (ps) => ps.map((p, i) => ({ id: `p${i}`, url: p.url }));

  for (const mode of ['parallel-http', 'range-http']) {
    describe(mode, () => {
      it('hands out every byte once: the pieces tile the object and equal the result', async () => {
        const ps = [await proxy(), await proxy(), await proxy()];
        const col = collector();
        const { data, stats } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, proxies: refs(ps), onProgress: col.onProgress });
        assert.equal(sha(data), sha(demoBytes(MB)));
        assertTiles(col.pieces, data);
        assert.equal(stats.netBytes, MB);
        assert.ok(col.netSeen.every((v, i) => i === 0 || v >= col.netSeen[i - 1]), 'netBytes never goes back');
      });

      it('streams an inclusive byte range at offsets from the range start', async () => {
        const ps = [await proxy(), await proxy()];
        const col = collector();
        const want = demoBytes(MB).subarray(1000, 301_000);
        const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, range: '1000-300999', proxies: refs(ps), onProgress: col.onProgress });
        assert.equal(sha(data), sha(want));
        assertTiles(col.pieces, want);
      });

      it('the first pieces arrive while every proxy still holds the rest of its body', async () => {
        // Every response stops after HOLD_AT_BYTES until the test releases it, and the test does
        // so only on a streamed piece. Without streaming nothing would release them: the
        // download would fail on the stall timer instead.
        const ps = [await proxy({ holdAfterBytes: HOLD_AT_BYTES }), await proxy({ holdAfterBytes: HOLD_AT_BYTES })];
        const col = collector();
        let releasedAfter = null;
        const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, {
          mode, proxies: refs(ps), stallTimeoutMs: STALL_MS,
          onProgress: (p) => {
            col.onProgress(p);
            if (releasedAfter === null && p.chunks.length > 0) {
              releasedAfter = col.events.length;
              col.events.push('release');
              for (const x of ps) x.release();
            }
          },
        });
        col.events.push('complete');
        assert.ok(releasedAfter !== null, 'no piece before the held bodies were released');
        assert.equal(col.events.indexOf('release'), releasedAfter);
        assert.ok(col.events.indexOf('piece') < col.events.indexOf('release'), 'a piece came before the release');
        assert.ok(col.events.lastIndexOf('piece') > col.events.indexOf('release'), 'pieces came after the release too');
        assert.equal(col.events.at(-1), 'complete');
        assert.ok(ps.some((x) => x.held() > 0), 'no response was held: the test proved nothing');
        assertTiles(col.pieces, data);
        assert.equal(sha(data), sha(demoBytes(MB)));
      });

      it('tells the size with the first piece (a player\'s Content-Length), and streams a 1-byte object', async () => {
        const ps = [await proxy(), await proxy()];
        const sizesAtPieces = [];
        const onProgress = (p) => { if (p.chunks.length > 0) sizesAtPieces.push(p.objectBytes); };
        await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, range: '10-200009', proxies: refs(ps), onProgress });
        assert.ok(sizesAtPieces.length > 0);
        assert.deepEqual([...new Set(sizesAtPieces)], [200_000]);
        const col = collector();
        const { data } = await client().download(`${ORIGIN}/media/demo-1B.bin`, { mode, proxies: refs(ps), onProgress: col.onProgress });
        assertTiles(col.pieces, data);
      });

      it('a proxy that dies mid-body: the other proxy\'s bytes fill in, no byte twice, result unchanged', async () => {
        const ps = [await proxy({ dieAfterBytes: 100_000 }), await proxy()];
        const col = collector();
        const { data, stats } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode, proxies: refs(ps), onProgress: col.onProgress });
        assert.equal(stats.error, null);
        assert.equal(sha(data), sha(demoBytes(MB)));
        assertTiles(col.pieces, data);
        // some bytes arrived twice (the dead proxy's part, then again from the other): the de-duplication was exercised
        assert.ok(stats.perProxy[0].bytes > 0 && stats.perProxy[0].bytes + stats.perProxy[1].bytes > MB, JSON.stringify(stats.perProxy));
      });

      it('a throwing onProgress is the caller\'s bug: logged, the download completes', async () => {
        const ps = [await proxy()];
        const warnings = [];
        const c = createClient({ origo: null, logger: { warn: (...a) => warnings.push(a.join(' ')) } });
        const { data } = await c.download(`${ORIGIN}/media/demo-3KB.bin`, { mode, proxies: refs(ps), onProgress: () => { throw new Error('player bug'); } });
        assert.equal(sha(data), sha(demoBytes(3072)));
        assert.ok(warnings.some((w) => w.includes('player bug')), warnings.join('\n'));
      });
    });
  }

  it('parallel-http: a proxy that ignores Range streams only the asked range', async () => {
    const p = await proxy({ ignoreRange: true });
    const col = collector();
    const want = demoBytes(MB).subarray(70_000, 200_000); // crosses the fake proxy's 64 KiB write slices
    const { data } = await client().download(`${ORIGIN}/media/demo-1MB.bin`, { mode: 'parallel-http', range: '70000-199999', proxies: [{ id: 'a', url: p.url }], onProgress: col.onProgress });
    assert.equal(sha(data), sha(want));
    assertTiles(col.pieces, want);
  });
});

describe('createPieceSet', () => {
  const bytes = (/** @type {number} */ from, /** @type {number} */ n) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);
  const shape = (/** @type {{offset: number, bytes: Uint8Array}[]} */ ps) => ps.map((p) => [p.offset, p.bytes.byteLength, p.bytes[0]]);

  it('hands out only the parts not handed out before, at their offsets', () => {
    const s = createPieceSet();
    assert.deepEqual(shape(s.take(10, bytes(10, 10))), [[10, 10, 10]]);
    assert.deepEqual(shape(s.take(30, bytes(30, 5))), [[30, 5, 30]]);
    // overlaps both spans and the gap between them and beyond
    assert.deepEqual(shape(s.take(5, bytes(5, 40))), [[5, 5, 5], [20, 10, 20], [35, 10, 35]]);
    assert.deepEqual(s.spans(), [[5, 45]]);
    assert.deepEqual(s.take(5, bytes(5, 40)), [], 'all of it was handed out');
    assert.equal(s.handedOut(), 40);
  });

  it('merges touching spans and refuses empty or bad offsets', () => {
    const s = createPieceSet();
    s.take(0, bytes(0, 4));
    s.take(8, bytes(8, 4));
    assert.deepEqual(shape(s.take(4, bytes(4, 4))), [[4, 4, 4]]);
    assert.deepEqual(s.spans(), [[0, 12]]);
    assert.deepEqual(s.take(20, new Uint8Array(0)), []);
    assert.deepEqual(s.take(-1, bytes(0, 4)), []);
    assert.deepEqual(s.take(1.5, bytes(0, 4)), []);
    assert.deepEqual(s.spans(), [[0, 12]]);
  });
});
