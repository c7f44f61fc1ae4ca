// An origin whose body stops: the proxy gives the fetch up after ORIGIN_IDLE_TIMEOUT_MS with no
// byte, as ERR_ORIGIN_TIMEOUT, well before its whole-fetch cap and before the clients' own stall
// timers would blame the proxy. A slow origin that keeps sending is not cut.
import assert from 'node:assert/strict';
import { ORIGIN_FETCH_TIMEOUT_MS, ORIGIN_IDLE_TIMEOUT_MS } from '@mutp/protocol/constants';
import { startProxy } from '../index.js';
import { startOrigin, captureLogger } from '@mutp/testkit/local-origin';

/** A slow origin's pieces come this often (ms): under the idle timeout, so it is never idle that long. */
const SLOW_PIECE_EVERY_MS = ORIGIN_IDLE_TIMEOUT_MS / 3;
/** ...this many of them: the whole body takes longer than the idle timeout. */
const SLOW_PIECES = 5;

describe('proxy: an origin whose body stops', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {import('node:http').ServerResponse[]} */ const held = [];

  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = req.url ?? '/';
      // no Content-Length (chunked): the proxy answers once it has the whole body, or its error
      if (path.startsWith('/stops')) {
        res.writeHead(200, { 'content-type': 'video/iso.segment' });
        res.write(Buffer.alloc(50_000, 1));
        held.push(res); // and never another byte
        return;
      }
      if (path.startsWith('/slow')) {
        res.writeHead(200, { 'content-type': 'video/iso.segment' });
        let n = 0;
        const t = setInterval(() => {
          res.write(Buffer.alloc(1000, ++n));
          if (n === SLOW_PIECES) { clearInterval(t); res.end(); }
        }, SLOW_PIECE_EVERY_MS);
        return;
      }
      res.writeHead(404).end();
    });
    proxy = await startProxy({ allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: captureLogger().logger });
  });
  after(async () => {
    for (const r of held) r.destroy();
    await proxy?.close();
    await origin?.close();
  });

  it(`fails the fetch with 504 ERR_ORIGIN_TIMEOUT after ${ORIGIN_IDLE_TIMEOUT_MS} ms without a byte, long before the ${ORIGIN_FETCH_TIMEOUT_MS} ms cap`, async () => {
    const t0 = performance.now();
    const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/stops`)}`);
    const ms = performance.now() - t0;
    assert.equal(res.status, 504);
    const { error } = /** @type {any} */ (await res.json());
    assert.equal(error.code, 'ERR_ORIGIN_TIMEOUT');
    assert.match(error.message, /sent nothing for \d+ ms after 50000 B/);
    assert.ok(ms >= ORIGIN_IDLE_TIMEOUT_MS - 50 && ms < ORIGIN_FETCH_TIMEOUT_MS / 2, `answered after ${Math.round(ms)} ms`);
  });

  it('serves a slow origin that keeps sending, however long the whole body takes', async () => {
    const res = await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/slow`)}`);
    assert.equal(res.status, 200);
    const body = new Uint8Array(await res.arrayBuffer());
    assert.equal(body.byteLength, SLOW_PIECES * 1000);
    assert.equal(body[SLOW_PIECES * 1000 - 1], SLOW_PIECES);
  });
});
