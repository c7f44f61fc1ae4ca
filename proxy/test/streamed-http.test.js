// A whole object's body that the origin is still sending: a proxy's /fetch answers at the
// origin's head and sends the bytes as they come (Parallel HTTP's bodies overlap the proxies'
// origin fetches); so does a Range-split first share, past SHARE_LIST_WAIT_MS. The digest list,
// asked after the head, waits for the whole object; a block reaches the caller once a strict
// majority of the proxies vouch for it (lists or bodies).
import assert from 'node:assert/strict';
import { createClient } from '@mutp/proxyclientlib';
import { BLOCK_BYTES, DIGEST_LIST_HEADER, SHARE_HEADER, WHOLE_OBJECT_BLOCKS, decodeDigestList, digestList } from '@mutp/protocol';
import { startProxy } from '../index.js';
import { paceBody, startOrigin } from '@mutp/testkit/local-origin';
import { testBytes } from '@mutp/testkit/mutp-harness';

const BODY = testBytes(1_000_000, 3);
/** Paths under /big serve this: more blocks than three first shares hold (each at most 12 of 64 KiB). */
const BIG = testBytes(4_000_000, 5);
/** The slow origin sends its body in pieces of this size (bytes) ... */
const PIECE_BYTES = 64 * 1024;
/** ... one every this many ms: ~320 ms for the whole body. */
const PIECE_EVERY_MS = 20;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describe('HTTP: a proxy sends a whole object\'s body while the origin still sends it', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** per path: when (performance.now) the origin wrote its last byte */
  /** @type {Map<string, number>} */
  const sentAll = new Map();

  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = String(req.url);
      paceBody(res, path.startsWith('/big') ? BIG : BODY, {
        pieceBytes: PIECE_BYTES, everyMs: PIECE_EVERY_MS, diesAt: path.startsWith('/dies') ? BODY.length / 2 : Infinity, // the origin's connection breaks midway
        onEnd: () => sentAll.set(path, performance.now()),
      });
    });
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `t${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: /** @type {any} */ (quiet) })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await origin.close();
  });

  /** @param {string} path */
  const fetchUrl = (path) => `${proxies[0].url}/fetch?url=${encodeURIComponent(`${origin.url}${path}`)}`;

  it('the head and the first bytes come before the origin has sent the object; the body is byte-exact, with no digest list inline', async () => {
    const res = await fetch(fetchUrl('/plain.mp4'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(BODY.length));
    assert.equal(res.headers.get('x-mutp-cache'), 'MISS');
    assert.equal(res.headers.get('x-mutp-digests'), null, 'not known yet: the client asks for it');
    const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (res.body?.getReader());
    const first = await reader.read();
    assert.ok(first.value && first.value.length > 0);
    assert.equal(sentAll.has('/plain.mp4'), false, 'the origin is still sending');
    const parts = [Buffer.from(first.value)];
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      parts.push(Buffer.from(r.value));
    }
    assert.ok(Buffer.concat(parts).equals(BODY), 'byte-exact');
    // cached now: the next answer is whole, its digest list inline as before
    const again = await fetch(`${fetchUrl('/plain.mp4')}&mode=parallel-http`);
    assert.equal(again.headers.get('x-mutp-cache'), 'HIT');
    assert.ok(Buffer.from(await again.arrayBuffer()).equals(BODY));
  });

  it('Parallel HTTP: bytes arrive, and blocks two bodies agree on reach the caller, while the origins still send; byte-exact', async () => {
    const client = createClient({ origo: null, logger: quiet });
    let bytesAt = 0;
    let deliveredEarly = false;
    const { data } = await client.download(`${origin.url}/parallel.mp4`, {
      mode: 'parallel-http', proxies: proxies.map((p) => ({ id: p.id, url: p.url })), log: false,
      onProgress: (p) => {
        if (!bytesAt && p.grossBytes > 0) bytesAt = performance.now();
        if (p.netBytes > 0 && !sentAll.has('/parallel.mp4')) deliveredEarly = true;
      },
    });
    assert.ok(Buffer.from(data).equals(BODY), 'byte-exact');
    const end = /** @type {number} */ (sentAll.get('/parallel.mp4'));
    assert.ok(bytesAt > 0 && bytesAt < end - 100, `bytes came ${Math.round(end - bytesAt)} ms before the origin's last`);
    // a block is verified once a strict majority of the proxies vouch for it, with their lists or the bytes they sent
    assert.equal(deliveredEarly, true, 'verified bytes (two bodies of three agree) reached the caller before the origin had sent the object');
  });

  it('a Range-split first share: its head and its bytes come as the origin sends them, without the list; the list, asked apart, is the whole object\'s', async () => {
    const share = (/** @type {number} */ i) => fetch(`${fetchUrl('/share.mp4')}&mode=range-http&share=${i}&weights=1,1,1&cap=16384`);
    const first = await share(0);
    assert.equal(first.status, 206);
    assert.equal(first.headers.get(DIGEST_LIST_HEADER), null, 'not known yet: the client asks for it');
    const [a, b] = String(first.headers.get(SHARE_HEADER)).split('-').map(Number);
    assert.ok(a === 0 && b > 0 && b * BLOCK_BYTES < BODY.length, `share 0: blocks ${a}-${b}`);
    assert.equal(first.headers.get('content-range'), `bytes 0-${b * BLOCK_BYTES - 1}/${BODY.length}`);
    assert.ok(Buffer.from(await first.arrayBuffer()).equals(BODY.subarray(0, b * BLOCK_BYTES)), 'byte-exact');
    assert.equal(sentAll.has('/share.mp4'), false, 'the whole share came while the origin was still sending');
    const last = await share(2);
    const [c, d] = String(last.headers.get(SHARE_HEADER)).split('-').map(Number);
    assert.ok(c >= b && d > c, `share 2: blocks ${c}-${d}`);
    assert.ok(Buffer.from(await last.arrayBuffer()).equals(BODY.subarray(c * BLOCK_BYTES, Math.min(d * BLOCK_BYTES, BODY.length))), 'share 2, byte-exact');
    const listed = await fetch(`${fetchUrl('/share.mp4')}&digests=1`);
    const list = decodeDigestList(new Uint8Array(await listed.arrayBuffer()), WHOLE_OBJECT_BLOCKS);
    assert.ok(list.ok);
    assert.deepEqual([...list.list.digests], [...digestList(BODY).digests]);
  });

  it('a first share the client abandons midway (a range that lost its race to a copy) is still logged: ERR_ABORTED, the bytes written so far', async () => {
    const proxy = proxies[1];
    const downloadId = 'abandoned-share';
    const ctrl = new AbortController();
    const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/abandoned.mp4`)}&mode=range-http&share=0&weights=1,1,1&cap=16384&downloadId=${downloadId}`, { signal: ctrl.signal });
    assert.equal(res.status, 206);
    const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (res.body?.getReader());
    assert.ok((await reader.read()).value?.length, 'its first bytes came');
    ctrl.abort();
    /** @type {any[]} */
    const recs = [];
    for (let i = 0; i < 100 && !recs.some((r) => r.downloadId === downloadId); i++) {
      await new Promise((r) => setTimeout(r, 20));
      for (let b = proxy.queue.takeBatch(); b.length > 0; b = proxy.queue.takeBatch()) recs.push(...b);
    }
    const mine = recs.filter((r) => r.downloadId === downloadId);
    assert.equal(mine.length, 1, 'one record');
    assert.equal(mine[0].error?.code, 'ERR_ABORTED');
    assert.ok(mine[0].bytesSent > 0 && mine[0].bytesSent < BODY.length, `bytes written: ${mine[0].bytesSent}`);
    assert.equal(mine[0].mode, 'range-http');
  });

  it('Range-split: bytes arrive while the origins still send; byte-exact, verified', async () => {
    const client = createClient({ origo: null, logger: quiet });
    let bytesAt = 0;
    const { data, stats } = await client.download(`${origin.url}/range-split.mp4`, {
      mode: 'range-http', proxies: proxies.map((p) => ({ id: p.id, url: p.url })), log: false,
      onProgress: (p) => { if (!bytesAt && p.grossBytes > 0) bytesAt = performance.now(); },
    });
    assert.ok(Buffer.from(data).equals(BODY), 'byte-exact');
    assert.equal(stats.verified, true);
    const end = /** @type {number} */ (sentAll.get('/range-split.mp4'));
    assert.ok(bytesAt > 0 && bytesAt < end - 100, `bytes came ${Math.round(end - bytesAt)} ms before the origin's last`);
  });

  it('a range of an HTTP mode whose object is still coming: its bytes as they come, not after the object\'s last', async () => {
    const whole = await fetch(fetchUrl('/ranged.mp4')); // the object asked whole (a download's list or first share)
    assert.equal(whole.status, 200);
    const ranged = (/** @type {number} */ a, /** @type {number} */ b) => fetch(`${fetchUrl('/ranged.mp4')}&mode=range-http`, { headers: { range: `bytes=${a}-${b}` } });
    const early = await ranged(65_536, 131_071);
    assert.equal(early.status, 206);
    assert.equal(early.headers.get('content-range'), `bytes 65536-131071/${BODY.length}`);
    assert.ok(Buffer.from(await early.arrayBuffer()).equals(BODY.subarray(65_536, 131_072)), 'byte-exact');
    assert.equal(sentAll.has('/ranged.mp4'), false, 'the range came while the origin was still sending');
    const late = await ranged(900_000, 2_000_000);
    assert.equal(late.headers.get('content-range'), `bytes 900000-999999/${BODY.length}`, 'cut at the object\'s end');
    assert.ok(Buffer.from(await late.arrayBuffer()).equals(BODY.subarray(900_000)), 'byte-exact');
    await whole.arrayBuffer();
  });

  it('Range-split: the ranges after the first shares come while the origins still send; byte-exact, verified', async () => {
    const client = createClient({ origo: null, logger: quiet });
    let gross = 0;
    /** @type {number | null} */
    let grossAtOriginEnd = null;
    const { data, stats } = await client.download(`${origin.url}/big-range-split.mp4`, {
      mode: 'range-http', proxies: proxies.map((p) => ({ id: p.id, url: p.url })), log: false,
      onProgress: (p) => {
        if (grossAtOriginEnd === null && sentAll.has('/big-range-split.mp4')) grossAtOriginEnd = gross;
        gross = p.grossBytes;
      },
    });
    assert.ok(Buffer.from(data).equals(BIG), 'byte-exact');
    assert.equal(stats.verified, true);
    const shares = 3 * 12 * BLOCK_BYTES; // the first shares' most
    assert.ok((grossAtOriginEnd ?? 0) > shares + 8 * BLOCK_BYTES, `${grossAtOriginEnd} bytes in when the origin sent its last; the first shares hold at most ${shares}`);
  });

  it('an origin that breaks midway cuts the body short: the client sees a truncated response', async () => {
    const res = await fetch(fetchUrl('/dies.mp4'));
    assert.equal(res.status, 200);
    await assert.rejects(res.arrayBuffer());
    const share = await fetch(`${fetchUrl('/dies-share.mp4')}&mode=range-http&share=2&weights=1,1,1&cap=16384`);
    assert.equal(share.status, 206);
    await assert.rejects(share.arrayBuffer(), 'a share past the break');
  });
});
