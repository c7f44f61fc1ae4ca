// GET /fetch Range semantics, byte-exact (sha256), and single-flight over HTTP.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startProxy } from '../index.js';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';
import { BLOCK_BYTES, SHARE_HEADER, blocksOfRange, decodeDigestList, digestList, DIGEST_LIST_HEADER, WHOLE_OBJECT_BLOCKS } from '@mutp/protocol';

const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const SIZE = 1_000_003; // odd size: ranges do not line up with anything

describe('proxy /fetch: Range', () => {
  const data = testBytes(SIZE);
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {string} */ let target;
  /** @type {() => void} */ let releaseSlow = () => {};

  before(async () => {
    origin = await startOrigin((req, res) => {
      if (req.url === '/empty') return res.end();
      if (req.url?.startsWith('/ranged')) return answerRange(req, res);
      if (req.url === '/slow') {
        // Holds the answer until the test has sent all its concurrent requests.
        releaseSlow = () => res.end(data.subarray(0, 1000));
        return;
      }
      res.writeHead(200, { 'content-type': 'video/webm' }).end(data);
    });
    // read-ahead off: these tests count the origin's requests (read-ahead has its own tests below)
    proxy = await startProxy({ allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger, readAhead: false });
    target = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/video.webm`)}`;
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });

  /** What the origin was asked for on /ranged*: each request's Range header (null: none). */
  /** @type {(string | null)[]} */
  const asked = [];
  /** An origin that honours one closed Range (206), /ranged-liar answers other bytes, /ranged-nosize does not say the object's size. @param {any} req @param {any} res */
  function answerRange(req, res) {
    const h = req.headers.range ?? null;
    asked.push(h);
    const m = /^bytes=(\d+)-(\d+)$/.exec(h ?? '');
    if (!m) return res.writeHead(200, { 'content-type': 'video/mp4' }).end(data);
    if (Number(m[1]) >= SIZE) return res.writeHead(416, { 'content-range': `bytes */${SIZE}` }).end();
    const start = Number(m[1]) + (req.url === '/ranged-liar' ? 1 : 0);
    const end = Math.min(Number(m[2]), SIZE - 1);
    const total = req.url === '/ranged-nosize' ? '*' : SIZE;
    res.writeHead(206, { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${total}` }).end(data.subarray(start, end + 1));
  }

  /** @param {string | undefined} range @param {string} [url] */
  async function get(range, url = target) {
    const res = await fetch(url, { headers: range ? { range } : {} });
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  it('serves the whole object with 200 and Accept-Ranges', async () => {
    const { res, bytes } = await get(undefined);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-type'), 'video/webm');
    assert.equal(res.headers.get('content-length'), String(SIZE));
    assert.equal(sha(bytes), sha(data));
  });

  const ranges = [
    ['bytes=0-0', 0, 0],
    ['bytes=0-99999', 0, 99999],
    ['bytes=123457-654320', 123457, 654320],
    [`bytes=${SIZE - 1}-`, SIZE - 1, SIZE - 1],
    ['bytes=500000-', 500000, SIZE - 1],
    ['bytes=-1000', SIZE - 1000, SIZE - 1],
    [`bytes=999-${SIZE + 5000}`, 999, SIZE - 1],
  ];
  for (const [range, start, end] of ranges) {
    it(`answers ${range} with 206 and exactly bytes ${start}..${end}`, async () => {
      const { res, bytes } = await get(/** @type {string} */ (range));
      assert.equal(res.status, 206);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${SIZE}`);
      assert.equal(bytes.length, Number(end) - Number(start) + 1);
      assert.equal(sha(bytes), sha(data.subarray(Number(start), Number(end) + 1)));
    });
  }

  it('&digests=1 answers the digest list of the whole object, whatever Range is asked', async () => {
    const { res, bytes } = await get('bytes=5-9', `${target}&digests=1`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    const parsed = decodeDigestList(bytes);
    assert.ok(parsed.ok);
    assert.equal(parsed.list.objectBytes, SIZE);
    assert.deepEqual([...parsed.list.digests], [...digestList(data).digests]);
    const again = await get(undefined, `${target}&digests=1`);
    assert.equal(sha(again.bytes), sha(bytes));
    const bad = await get(undefined, `${target}&digests=2`);
    assert.equal(bad.res.status, 400);
    assert.equal(JSON.parse(Buffer.from(bad.bytes).toString()).error.code, 'ERR_BAD_QUERY');
  });

  it('a body response carries its digest list in its head (DIGEST_LIST_HEADER), readable cross-origin: whole, or of its range\'s blocks', async () => {
    const whole = await get(undefined);
    const wholeList = decodeDigestList(new Uint8Array(Buffer.from(String(whole.res.headers.get(DIGEST_LIST_HEADER)), 'base64')));
    assert.ok(wholeList.ok);
    assert.deepEqual([...wholeList.list.digests], [...digestList(data).digests]);
    const { res } = await get('bytes=70000-140000', `${target}&mode=parallel-http`);
    assert.equal(res.status, 206);
    const inline = res.headers.get(DIGEST_LIST_HEADER);
    assert.ok(inline, 'no inline list');
    const wire = new Uint8Array(Buffer.from(inline, 'base64'));
    const span = blocksOfRange({ start: 70000, end: 140000 }); // blocks 1 and 2
    const parsed = decodeDigestList(wire, span);
    assert.ok(parsed.ok);
    assert.equal(parsed.list.objectBytes, SIZE);
    assert.equal(parsed.list.firstBlock, 1);
    assert.deepEqual([...parsed.list.digests], [...digestList(data).digests.subarray(8, 24)]);
    assert.equal(decodeDigestList(wire).ok, false, 'a span list is not a whole list');
    assert.ok(String(res.headers.get('access-control-expose-headers')).split(/,\s*/).includes(DIGEST_LIST_HEADER));
    const plain = await get('bytes=70000-140000');
    assert.equal(plain.res.headers.get(DIGEST_LIST_HEADER), null, 'a plain ranged /fetch is not voted on');
  });

  it('answers a range past the end with 416 and Content-Range bytes */size', async () => {
    const { res, bytes } = await get(`bytes=${SIZE}-`);
    assert.equal(res.status, 416);
    assert.equal(res.headers.get('content-range'), `bytes */${SIZE}`);
    assert.equal(JSON.parse(Buffer.from(bytes).toString()).error.code, 'ERR_RANGE_NOT_SATISFIABLE');
  });

  it('ignores a malformed or multi-part Range and sends the whole object', async () => {
    for (const range of ['bytes=abc', 'items=0-5', 'bytes=0-1,5-9']) {
      const { res, bytes } = await get(range);
      assert.equal(res.status, 200, range);
      assert.equal(sha(bytes), sha(data), range);
    }
  });

  it('ignores Range when the request has If-Range (the proxy gives no validator one could match) and sends the whole object', async () => {
    for (const ifRange of ['"v1"', 'Thu, 01 Jan 2026 00:00:00 GMT']) {
      const res = await fetch(target, { headers: { range: 'bytes=10-19', 'if-range': ifRange } });
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.equal(res.status, 200, ifRange);
      assert.equal(res.headers.get('content-range'), null, ifRange);
      assert.equal(sha(bytes), sha(data), ifRange);
    }
  });

  it('serves an empty object, and refuses any range of it with 416', async () => {
    const url = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/empty`)}`;
    const whole = await get(undefined, url);
    assert.equal(whole.res.status, 200);
    assert.equal(whole.bytes.length, 0);
    const ranged = await get('bytes=0-0', url);
    assert.equal(ranged.res.status, 416);
  });

  it('fetched the origin object once for all the requests above (cache)', () => {
    assert.equal(proxy.objects.stats().originFetches, 2); // /video.webm and /empty
  });

  it('shares one origin fetch among concurrent requests of an HTTP mode (single-flight)', async () => {
    // ranges in one digest block (the HTTP modes fetch whole blocks) share one origin fetch
    const url = `${proxy.url}/fetch?mode=range-http&url=${encodeURIComponent(`${origin.url}/slow`)}`;
    const hitsBefore = origin.hits();
    const pending = Array.from({ length: 8 }, (_, i) => get(`bytes=${i * 100}-${i * 100 + 99}`, url));
    // Wait until the proxy has asked the origin, then let the origin answer.
    while (origin.hits() === hitsBefore) await new Promise((r) => setImmediate(r));
    releaseSlow();
    const results = await Promise.all(pending);
    assert.equal(origin.hits() - hitsBefore, 1);
    results.forEach(({ res, bytes }, i) => {
      assert.equal(res.status, 206);
      assert.equal(sha(bytes), sha(data.subarray(i * 100, i * 100 + 100)));
    });
    const caches = results.map(({ res }) => res.headers.get('x-mutp-cache'));
    assert.ok(caches.every((c) => c === 'MISS' || c === 'HIT'));
    assert.ok(Number(results[0].res.headers.get('x-mutp-server-fetch-ms')) >= 0);
  });

  it('a plain /fetch of one closed range asks the origin for those bytes only, and keeps them', async () => {
    const url = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/ranged`)}`;
    asked.length = 0;
    const first = await get('bytes=200000-299999', url);
    assert.equal(first.res.status, 206);
    assert.equal(first.res.headers.get('content-range'), `bytes 200000-299999/${SIZE}`);
    assert.equal(first.res.headers.get('content-type'), 'video/mp4');
    assert.equal(sha(first.bytes), sha(data.subarray(200000, 300000)));
    const head = await fetch(url, { method: 'HEAD', headers: { range: 'bytes=200000-299999' } });
    assert.equal(head.headers.get('content-range'), `bytes 200000-299999/${SIZE}`, 'a HEAD gets the origin\'s total size');
    assert.equal(head.headers.get('x-mutp-cache'), 'HIT');
    const tail = await get(`bytes=${SIZE - 10}-${SIZE + 100}`, url);
    assert.equal(tail.res.headers.get('content-range'), `bytes ${SIZE - 10}-${SIZE - 1}/${SIZE}`, 'the origin stops at the object\'s end');
    assert.equal(sha(tail.bytes), sha(data.subarray(SIZE - 10)));
    assert.deepEqual(asked, ['bytes=200000-299999', `bytes=${SIZE - 10}-${SIZE + 100}`], 'one origin request per range, never the whole object');
  });

  it('an HTTP mode fetches its range\'s whole digest blocks from the origin, lists and serves any range they hold', async () => {
    const url = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/ranged-blocks`)}`;
    asked.length = 0;
    // Range-split HTTP: the span list first, then ranges of whole blocks inside it
    const list = await get(undefined, `${url}&digests=1&span=131072-458751`);
    assert.deepEqual(asked, ['bytes=131072-458751'], 'the span, not the whole object');
    const parsed = decodeDigestList(list.bytes, blocksOfRange({ start: 131072, end: 458751 }));
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.equal(parsed.list.firstBlock, 2);
    assert.deepEqual([...parsed.list.digests], [...digestList(data).digests.subarray(2 * 8, 7 * 8)]);
    for (const [a, b] of [[131072, 262143], [262144, 458751], [300000, 300010]]) {
      const part = await get(`bytes=${a}-${b}`, `${url}&mode=range-http`);
      assert.equal(part.res.status, 206);
      assert.equal(part.res.headers.get('content-range'), `bytes ${a}-${b}/${SIZE}`);
      assert.equal(sha(part.bytes), sha(data.subarray(a, b + 1)));
    }
    assert.equal(asked.length, 1, 'ranges inside the cached span: no origin request');
    // Parallel HTTP: an unaligned range is fetched as its whole blocks; the object's last block is short
    const last = await get(`bytes=${SIZE - 100}-${SIZE + 100}`, `${url}&mode=parallel-http`);
    assert.equal(last.res.headers.get('content-range'), `bytes ${SIZE - 100}-${SIZE - 1}/${SIZE}`);
    assert.equal(sha(last.bytes), sha(data.subarray(SIZE - 100)));
    const lastBlock = Math.floor((SIZE - 100) / BLOCK_BYTES);
    assert.deepEqual(asked.slice(1), [`bytes=${lastBlock * BLOCK_BYTES}-${(lastBlock + 1) * BLOCK_BYTES - 1}`]);
    const inline = decodeDigestList(new Uint8Array(Buffer.from(String(last.res.headers.get(DIGEST_LIST_HEADER)), 'base64')), blocksOfRange({ start: SIZE - 100, end: SIZE + 100 }));
    assert.ok(inline.ok);
    assert.deepEqual([...inline.list.digests], [...digestList(data).digests.subarray(lastBlock * 8)]);
    // no digest list request without digests=1, no malformed span
    for (const q of ['&span=0-99', '&digests=1&span=99-0', '&digests=1&span=abc']) {
      const bad = await get(undefined, `${url}${q}`);
      assert.equal(bad.res.status, 400, q);
      assert.equal(JSON.parse(Buffer.from(bad.bytes).toString()).error.code, 'ERR_BAD_QUERY');
    }
  });

  it('a first share: the whole list in the head, share i of the blocks as the body (Range-split HTTP\'s first ranges)', async () => {
    const url = `${target}&mode=range-http`;
    await get(undefined, target); // whole in the cache: a share of an object still coming may go without its list
    // 1000003 bytes = 16 blocks (the last short); weights 2:1:1, at most 6 blocks each: 6, 4, 4, and 2 left
    const cases = [[0, 0, 6], [1, 6, 10], [2, 10, 14]];
    for (const [i, a, b] of cases) {
      const { res, bytes } = await get(undefined, `${url}&share=${i}&weights=1792,896,896&cap=6`);
      assert.equal(res.status, 206);
      assert.equal(res.headers.get(SHARE_HEADER), `${a}-${b}`);
      assert.equal(res.headers.get('content-range'), `bytes ${a * BLOCK_BYTES}-${b * BLOCK_BYTES - 1}/${SIZE}`);
      assert.equal(sha(bytes), sha(data.subarray(a * BLOCK_BYTES, b * BLOCK_BYTES)));
      const list = decodeDigestList(new Uint8Array(Buffer.from(String(res.headers.get(DIGEST_LIST_HEADER)), 'base64')), WHOLE_OBJECT_BLOCKS);
      assert.ok(list.ok);
      assert.deepEqual([...list.list.digests], [...digestList(data).digests]);
    }
    // the last share holds the short last block; a share past the object's blocks is empty
    const last = await get(undefined, `${url}&share=1&weights=1,1&cap=100`);
    assert.equal(last.res.headers.get('content-range'), `bytes ${8 * BLOCK_BYTES}-${SIZE - 1}/${SIZE}`);
    assert.equal(sha(last.bytes), sha(data.subarray(8 * BLOCK_BYTES)));
    const many = Array(17).fill(1).join(',');
    const empty = await get(undefined, `${url}&share=16&weights=${many}&cap=1`);
    assert.equal(empty.res.status, 200);
    assert.equal(empty.res.headers.get(SHARE_HEADER), '16-16');
    assert.equal(empty.bytes.byteLength, 0);
    // parse at the edge: the share's fields go together, in range, with mode=range-http and no Range
    for (const q of ['&share=0&weights=1,1', '&share=2&weights=1,1&cap=4', '&share=0&weights=0,1&cap=4', '&share=0&weights=1,x&cap=4',
      '&share=0&weights=1&cap=0', `&share=0&weights=1&cap=99999`, '&share=0&weights=1&cap=4&digests=1']) {
      const bad = await get(undefined, `${url}${q}`);
      assert.equal(bad.res.status, 400, q);
      assert.equal(JSON.parse(Buffer.from(bad.bytes).toString()).error.code, 'ERR_BAD_QUERY', q);
    }
    const noMode = await get(undefined, `${target}&share=0&weights=1&cap=4`);
    assert.equal(noMode.res.status, 400, 'a share without mode=range-http');
    const ranged = await get('bytes=0-99', `${url}&share=0&weights=1&cap=4`);
    assert.equal(ranged.res.status, 400, 'a share with a Range');
  });

  it('a digest list of an object whose origin does not say its size (bytes a-b/*) is of the whole object', async () => {
    const url = `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/ranged-nosize`)}`;
    asked.length = 0;
    const list = await get(undefined, `${url}&digests=1&span=0-65535`);
    assert.deepEqual(asked, ['bytes=0-65535', null], 'the range, then (no size) the whole object');
    const parsed = decodeDigestList(list.bytes, blocksOfRange({ start: 0, end: 65535 }));
    assert.ok(parsed.ok);
    assert.equal(parsed.list.objectBytes, SIZE);
  });

  it('a range the origin does not have is 416 ERR_RANGE_NOT_SATISFIABLE', async () => {
    const { res, bytes } = await get(`bytes=${SIZE + 10}-${SIZE + 20}`, `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/ranged`)}`);
    assert.equal(res.status, 416);
    assert.equal(JSON.parse(Buffer.from(bytes).toString()).error.code, 'ERR_RANGE_NOT_SATISFIABLE');
  });

  it('refuses bytes the origin sent for another range than asked (ERR_ORIGIN_RANGE, 502)', async () => {
    const { res, bytes } = await get('bytes=100-199', `${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/ranged-liar`)}`);
    assert.equal(res.status, 502);
    assert.equal(JSON.parse(Buffer.from(bytes).toString()).error.code, 'ERR_ORIGIN_RANGE');
  });

  it('queues one proxy record per request, with the fetch outcome', () => {
    const recs = [];
    for (let b = proxy.queue.takeBatch(); b.length > 0; b = proxy.queue.takeBatch()) recs.push(...b);
    const ok = recs.filter((r) => r.error === null && r.objectBytes === SIZE);
    assert.ok(ok.length >= 10);
    for (const r of ok) {
      assert.equal(r.proxyId, proxy.id);
      assert.match(String(r.id), /^[0-9a-f-]{36}$/);
      assert.equal(typeof r.durationMs, 'number');
      assert.equal(typeof r.serverFetchMs, 'number');
    }
    assert.ok(recs.some((r) => /** @type {any} */ (r.error)?.code === 'ERR_RANGE_NOT_SATISFIABLE'));
  });
});

describe('proxy /fetch: read-ahead of a single-file stream', () => {
  const data = testBytes(SIZE);
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {(string | null)[]} */
  const asked = [];
  before(async () => {
    origin = await startOrigin((req, res) => {
      asked.push(req.headers.range ?? null);
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (!m) return res.writeHead(200, { 'content-type': 'video/mp4' }).end(data);
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), SIZE - 1);
      if (start >= SIZE) return res.writeHead(416, { 'content-range': `bytes */${SIZE}` }).end();
      res.writeHead(206, { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${SIZE}` }).end(data.subarray(start, end + 1));
    });
    proxy = await startProxy({ allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });
  const url = () => `${proxy.url}/fetch?mode=parallel-http&url=${encodeURIComponent(`${origin.url}/file.mp4`)}`;
  /** @param {string} range */
  async function get(range) {
    const res = await fetch(url(), { headers: { range } });
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  }
  /** Until the origin has answered n requests (a read-ahead runs after its answer is sent). @param {number} n */
  async function originAnswered(n) {
    while (proxy.objects.stats().inFlight > 0 || asked.length < n) await new Promise((r) => setTimeout(r, 5));
  }

  it('after a range, fetches what follows (twice its length, whole blocks), so the next ranges are cache hits', async () => {
    const seg = 150_000;
    const first = await get(`bytes=0-${seg - 1}`);
    assert.equal(first.res.headers.get('x-mutp-cache'), 'MISS');
    await originAnswered(2);
    assert.deepEqual(asked, ['bytes=0-196607', 'bytes=196608-458751'], 'the range as whole blocks, then the bytes after them up to 2 x 150,000 bytes on, in whole blocks');
    const second = await get(`bytes=${seg}-${2 * seg - 1}`);
    assert.equal(second.res.headers.get('x-mutp-cache'), 'HIT');
    assert.equal(sha(second.bytes), sha(data.subarray(seg, 2 * seg)));
    await originAnswered(2);
    assert.equal(asked.length, 2, 'the range after the second is held too: no read-ahead');
    const third = await get(`bytes=${2 * seg}-${3 * seg - 1}`);
    assert.equal(sha(third.bytes), sha(data.subarray(2 * seg, 3 * seg)));
    assert.equal(third.res.headers.get('x-mutp-cache'), 'HIT', 'made of the two held ranges');
    await originAnswered(3);
    assert.deepEqual(asked.slice(2), ['bytes=458752-786431'], 'only its read-ahead, from where the held bytes end');
    assert.equal(proxy.objects.stats().readAheads, 2);
  });

  it('does not read past the object\'s end, and a request waits for a read-ahead on its way instead of asking the origin again', async () => {
    asked.length = 0;
    const tail = SIZE - 300_000;
    const a = await get(`bytes=${tail}-${tail + 99_999}`);
    assert.equal(a.res.status, 206);
    // the read-ahead is on its way: the next range waits for it
    const b = await get(`bytes=${tail + 100_000}-${tail + 199_999}`);
    assert.equal(sha(b.bytes), sha(data.subarray(tail + 100_000, tail + 200_000)));
    await originAnswered(2);
    assert.equal(asked.length, 2, `one read-ahead, no second request: ${JSON.stringify(asked)}`);
    const last = await get(`bytes=${SIZE - 10}-${SIZE - 1}`);
    assert.equal(sha(last.bytes), sha(data.subarray(SIZE - 10)));
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(asked.every((r) => r === null || Number(/^bytes=(\d+)/.exec(r)?.[1]) < SIZE), `nothing asked past the end: ${JSON.stringify(asked)}`);
  });
});
