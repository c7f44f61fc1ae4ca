// proxyFetch hands a body download its pieces as they come and keeps no copy of the body; a caller
// that wants the body whole (a digest list) asks for it with keepBody, cut to the asked range when
// the proxy ignored Range.
import assert from 'node:assert/strict';
import { proxyFetch } from '../src/http/proxy-fetch.js';

const BODY = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff);
const CHUNK_BYTES = 1024; // several chunks, the last short

/**
 * A fetch that answers the whole of BODY in chunks with a 200, whatever Range was asked.
 * @returns {typeof fetch}
 */
function answering() {
  return /** @type {any} */ (async () => new Response(new ReadableStream({
    start(c) {
      for (let at = 0; at < BODY.length; at += CHUNK_BYTES) c.enqueue(BODY.slice(at, at + CHUNK_BYTES));
      c.close();
    },
  }), { status: 200, headers: { 'content-length': String(BODY.length) } }));
}

/** @param {typeof fetch} fetch @param {{start: number, end: number} | null} range @param {boolean} [keepBody] */
async function fetchVia(fetch, range, keepBody) {
  const got = new Uint8Array(range ? range.end - range.start + 1 : BODY.length);
  let seen = 0;
  const res = await proxyFetch({
    fetch, proxyUrl: 'http://proxy.test', url: 'http://origin.test/a.bin', range, signal: new AbortController().signal,
    onBytes: (_n, piece) => { if (piece) { got.set(piece.bytes, piece.offset); seen += piece.bytes.length; } },
    ...(keepBody === undefined ? {} : { keepBody }),
  });
  return { res, got: got.subarray(0, seen) };
}

describe('proxyFetch: the body, in pieces or kept', () => {
  it('a body download gets every byte in its pieces and no body in the result', async () => {
    const { res, got } = await fetchVia(answering(), null);
    assert.equal(res.bytes, null);
    assert.deepEqual(got, BODY);
    assert.equal(res.total, BODY.length);
  });

  it('keepBody gives the whole body too', async () => {
    const { res, got } = await fetchVia(answering(), null, true);
    assert.deepEqual(res.bytes, BODY);
    assert.deepEqual(got, BODY);
  });

  it('a proxy that ignores Range: the pieces and the kept body are the asked range only', async () => {
    const range = { start: 1500, end: 3999 };
    const want = BODY.subarray(range.start, range.end + 1);
    assert.deepEqual((await fetchVia(answering(), range)).got, want);
    const kept = await fetchVia(answering(), range, true);
    assert.deepEqual(kept.res.bytes, want);
    assert.deepEqual(kept.got, want);
  });

  it('a proxy that ignores Range for an object shorter than the range is refused, the body kept or not', async () => {
    for (const keepBody of [false, true]) {
      await assert.rejects(fetchVia(answering(), { start: BODY.length, end: BODY.length + 10 }, keepBody),
        (/** @type {any} */ err) => err.code === 'ERR_PROXY_BAD_RESPONSE' && /shorter than the asked range/.test(err.message));
    }
  });
});
