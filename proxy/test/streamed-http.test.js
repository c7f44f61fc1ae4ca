// A whole object's body that the origin is still sending: a proxy's /fetch answers at the
// origin's head and sends the bytes as they come (Parallel HTTP's bodies overlap the proxies'
// origin fetches). The digest list, asked after the head, waits for the whole object; a block
// reaches the caller once a strict majority of the proxies vouch for it (lists or bodies).
import assert from 'node:assert/strict';
import { createClient } from '@mutp/proxyclientlib';
import { startProxy } from '../index.js';
import { paceBody, startOrigin } from '@mutp/testkit/local-origin';
import { testBytes } from '@mutp/testkit/mutp-harness';

const BODY = testBytes(1_000_000, 3);
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
      paceBody(res, BODY, {
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

  it('an origin that breaks midway cuts the body short: the client sees a truncated response', async () => {
    const res = await fetch(fetchUrl('/dies.mp4'));
    assert.equal(res.status, 200);
    await assert.rejects(res.arrayBuffer());
  });
});
