// Answers from an object whose origin is still sending it (objects.open / opening): the head at
// once, with the lengths the origin's head gave, then the bytes as they come. The whole body
// (Parallel HTTP), a range inside it (Range-split HTTP) and its digest list (each block's entry
// as the block completes: the same bytes as a finished list). An origin that fails midway cuts
// the answer short: the client sees a truncated response, as from a proxy that died.
import { BLOCK_BYTES, OBJECT_SIZE_HEADER, blockCount, digestListBytes, spanDigestList, wholeListHeader } from '@mutp/protocol';
import { waitTiming } from './wait-timing.js';

/**
 * @typedef {import('../objects/object-store.js').OpenedObject} OpenedObject
 * @typedef {{ t0: number, proxyId: string, stats: { bytesSent: number }, log?: (o: { bytesSent: number, error: { code: string, message: string } | null }) => void }} AnswerContext
 *   t0: when the request came (performance.now()); log: the proxy record of a body answer
 */

/** The whole body. @param {import('express').Response} res @param {OpenedObject} opened @param {AnswerContext} ctx */
export function streamBody(res, opened, ctx) {
  res.status(200);
  res.setHeader('Accept-Ranges', 'bytes');
  heads(res, opened, ctx, opened.contentType);
  sendAsItComes(res, opened, 0, opened.bytes.byteLength, ctx);
}

/** Bytes start..end (inclusive, inside the object). @param {import('express').Response} res @param {OpenedObject} opened @param {{ start: number, end: number }} range @param {AnswerContext} ctx */
export function streamRange(res, opened, range, ctx) {
  res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${opened.bytes.byteLength}`);
  heads(res, opened, ctx, opened.contentType);
  sendAsItComes(res, opened, range.start, range.end + 1, ctx);
}

/** The whole object's digest list, its size said in the head. @param {import('express').Response} res @param {OpenedObject} opened @param {AnswerContext} ctx */
export function streamDigestList(res, opened, ctx) {
  const total = opened.bytes.byteLength;
  const blocks = blockCount(total);
  res.status(200);
  heads(res, opened, ctx, 'application/octet-stream');
  res.setHeader('Content-Length', String(digestListBytes(total)));
  res.setHeader(OBJECT_SIZE_HEADER, String(total));
  res.write(wholeListHeader(total));
  let digested = 0;
  pipe(res, opened, (filled) => {
    const upTo = filled === total ? blocks : Math.floor(filled / BLOCK_BYTES);
    if (upTo <= digested) return null;
    const out = spanDigestList(opened.bytes, 0, total, { first: digested, end: upTo }).digests;
    digested = upTo;
    return out;
  }, ctx);
}

/** @param {import('express').Response} res @param {OpenedObject} opened @param {AnswerContext} ctx @param {string} contentType */
function heads(res, opened, ctx, contentType) {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-MUTP-Proxy-Id', ctx.proxyId);
  res.setHeader('X-MUTP-Server-Fetch-Ms', opened.headMs.toFixed(1));
  res.setHeader('X-MUTP-Cache', 'MISS');
  res.setHeader('Server-Timing', waitTiming(ctx.t0, performance.now(), performance.now()));
}

/**
 * Bytes from..to of the object as they come.
 * @param {import('express').Response} res @param {OpenedObject} opened @param {number} from @param {number} to @param {AnswerContext} ctx
 */
function sendAsItComes(res, opened, from, to, ctx) {
  res.setHeader('Content-Length', String(to - from));
  let sent = from;
  pipe(res, opened, (filled) => {
    const upTo = Math.min(to, filled);
    if (upTo <= sent) return null;
    const out = opened.bytes.subarray(sent, upTo); // the buffer only grows past `filled`: the view stays valid
    sent = upTo;
    return out;
  }, ctx);
}

/**
 * Writes what `next(filled)` gives after each chunk of the origin's, ends with the object.
 * @param {import('express').Response} res @param {OpenedObject} opened
 * @param {(filled: number) => Uint8Array | null} next @param {AnswerContext} ctx
 */
function pipe(res, opened, next, ctx) {
  let bytesSent = 0;
  const more = () => {
    if (res.destroyed) return;
    const out = next(opened.filled());
    if (!out) return;
    res.write(out);
    bytesSent += out.byteLength;
    ctx.stats.bytesSent += out.byteLength;
  };
  const unsubscribe = opened.subscribe(more);
  res.on('close', unsubscribe);
  more();
  opened.done.then(() => {
    more();
    res.end(() => ctx.log?.({ bytesSent, error: null }));
  }, (/** @type {any} */ err) => {
    unsubscribe();
    res.destroy(err);
    ctx.log?.({ bytesSent, error: { code: typeof err?.code === 'string' ? err.code : 'ERR_ORIGIN', message: String(err?.message ?? err) } });
  });
}
