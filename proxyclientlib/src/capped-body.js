// Reading a peer's HTTP answer with a bound. `res.text()` and `res.json()` read whatever a proxy
// or Origo sends, to the end: a hostile or broken one can make the client buffer without limit,
// or wait forever on an endless body. Every small answer (errors, refusals, SDP answers, /healthz,
// Origo's JSON) is read here instead: at most `maxBytes`, then the stream is cancelled.
import { codedError } from '@mutp/common/errors';

/**
 * The body's bytes, at most maxBytes of them. A longer body (announced or sent) is cancelled and
 * refused with ERR_PROXY_TOO_LARGE, or the caller's code.
 * @param {Response} res @param {number} maxBytes @param {{code?: string, what?: string}} [o]  what: named in the error
 * @returns {Promise<Uint8Array>}
 */
export async function readCapped(res, maxBytes, { code = 'ERR_PROXY_TOO_LARGE', what = 'the answer' } = {}) {
  const tooLarge = () => codedError(code, `${what} is longer than ${maxBytes} bytes`);
  const announced = Number(res.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > maxBytes) {
    res.body?.cancel().catch(() => {}); // not awaited: a clone's cancel waits for its twin's (tee)
    throw tooLarge();
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array(0);
  /** @type {Uint8Array[]} the stream's chunks */
  const parts = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      reader.cancel().catch(() => {}); // not awaited: a clone's cancel waits for its twin's (tee)
      throw tooLarge();
    }
    parts.push(value);
  }
  // joined here: a Blob would be registered with the browser's blob store and read back asynchronously
  return concat(parts, length);
}

/**
 * The body as UTF-8 text, at most maxBytes (readCapped's refusal beyond).
 * @param {Response} res @param {number} maxBytes @param {{code?: string, what?: string}} [o]
 */
export async function textCapped(res, maxBytes, o) {
  return new TextDecoder().decode(await readCapped(res, maxBytes, o));
}

/**
 * The body as JSON, at most maxBytes (readCapped's refusal beyond; JSON.parse's SyntaxError for non-JSON).
 * @param {Response} res @param {number} maxBytes @param {{code?: string, what?: string}} [o]
 * @returns {Promise<unknown>}
 */
export async function jsonCapped(res, maxBytes, o) {
  return JSON.parse(await textCapped(res, maxBytes, o));
}

/**
 * The chunks as one array (the only chunk itself, uncopied).
 * @param {Uint8Array[]} chunks
 * @param {number} total
 */
export function concat(chunks, total) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}
