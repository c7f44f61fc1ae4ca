import parseRange from 'range-parser';
import { MAX_SOURCES, DIGEST_LIST_HEADER, MAX_INLINE_DIGEST_LIST_BYTES, WHOLE_OBJECT_BLOCKS, SHARE_HEADER, MAX_SHARE_WEIGHT, MAX_SHARE_CAP_BLOCKS,
  blockAligned, blockCount, blocksOfRange, shareBytes, shareOf, spanListBytes } from '@mutp/protocol';
import { parseClosedRange } from '@mutp/common/byte-ranges';
import { sendError } from './error-status.js';
import { sendDigests } from './digest-answer.js';
import { setAnswerHeads } from './answer-heads.js';
import { encodedDigestsOf } from '../objects/digest-cache.js';
import { SHARE_LIST_WAIT_MS } from '../limits.js';

// Modes a client may declare on /fetch so the proxy's record says which one it served.
const HTTP_MODES = new Set(['parallel-http', 'range-http']);
// Origo stores ids of up to 128 characters; printable tokens only, they end up in logs.
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * GET /fetch?url=…[&downloadId=…&mode=parallel-http|range-http&sourceIndex=i&n=N][&next=…]
 * Serves the proxy's copy of the object, honouring one `Range` (206 / 416).
 * With `&digests=1[&span=a-b]`: the digest list of the whole object, or of the blocks of bytes
 * a..b, instead (digest-answer.js). A body response of an HTTP mode carries its list too when it
 * is small (DIGEST_LIST_HEADER): the span list of its range's blocks, or the whole list.
 * A closed range is fetched from the origin alone, not the whole file: exactly (a plain /fetch),
 * or widened to whole digest blocks (the HTTP modes, a span list).
 * With `&mode=range-http&share=i&weights=w0,w1,…&cap=C` (no Range): the whole object's list in the
 * head and share i of its blocks as the body (first-shares.js in @mutp/protocol), 206 with
 * Content-Range and SHARE_HEADER `a-b` (blocks), or 200 with no body and `a-a` for an empty share:
 * a Range-split download's first ranges, asked with its lists before it knows the object's size.
 * `next`: the object the client will likely ask next, fetched meanwhile (objects/next-hint.js).
 * @param {{ objects: ReturnType<typeof import('../objects/object-store.js').createObjectStore>,
 *           logs: { record: (r: object) => void }, stats: { bytesSent: number },
 *           proxyId: string, hintNext?: (url: string) => void }} deps
 * @returns {import('express').RequestHandler}
 */
export function createFetchRoute({ objects, logs, stats, proxyId, hintNext = () => {} }) {
  return async (req, res) => {
    const startedAt = new Date();
    const t0 = performance.now();
    const q = readQuery(req.query);
    if (!q.ok) return sendError(res, { code: 'ERR_BAD_QUERY', message: q.message });
    // A proxy gives no validators (ETag, Last-Modified), so no If-Range can match one of its
    // answers: RFC 9110 §13.1.5 then wants the Range ignored and the whole object sent. A tool
    // resuming with a validator from elsewhere must not get bytes of another version spliced in.
    const rangeHeader = req.headers['if-range'] === undefined ? req.headers.range : undefined;
    if (q.share && rangeHeader !== undefined) return sendError(res, { code: 'ERR_BAD_QUERY', message: 'share asks for its own range: send no Range' });
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const record = {
      proxyId, downloadId: q.downloadId, startedAt: startedAt.toISOString(), mode: q.mode, url: q.url,
      objectBytes: null, sourceIndex: q.sourceIndex, n: q.n, params: { range: rangeHeader ?? null },
      packetsSent: 0, bytesSent: 0, durationMs: 0, serverFetchMs: null, fromCache: false, error: null,
    };
    const voted = q.digests || HTTP_MODES.has(q.mode); // the answer, or the client, needs digests of whole blocks
    const downloadId = q.downloadId ?? undefined; // the download's requests (its share, its list) see one copy
    const closed = q.digests ? q.span : parseClosedRange(rangeHeader);
    const need = closed && voted ? blockAligned(closed) : closed;
    // a whole object's body, or a first share of it, that the origin is still sending goes out as it
    // comes (a share after SHARE_LIST_WAIT_MS: a whole object by then rides with its list); its
    // digest list is not known yet, so the client asks for it after the head (that request waits
    // for the whole). The origin's head gives the size a share's blocks are counted in.
    const streams = !q.digests && rangeHeader === undefined && req.method === 'GET';
    // a range of an HTTP mode whose object the origin is still sending (asked whole by the
    // download's lists or first shares) goes out as its bytes come, not after the object's last
    const joined = closed && voted && !q.digests && req.method === 'GET' ? objects.openComing(q.url, downloadId) : null;
    if (joined && closed && closed.start < joined.bytes.byteLength) {
      if (q.next !== null) hintNext(q.next);
      const end = Math.min(closed.end + 1, joined.bytes.byteLength);
      res.status(206).setHeader('Content-Range', `bytes ${closed.start}-${end - 1}/${joined.bytes.byteLength}`);
      return streamBody(res, joined, { start: closed.start, end }, { record, t0, proxyId, logs, stats });
    }
    let obj;
    try {
      // its origin fetch, if any, starts here
      const asked = streams ? objects.open(q.url, { signal: abort.signal, downloadId }) : objects.get(q.url, { signal: abort.signal, range: need, downloadId });
      if (q.next !== null) hintNext(q.next); // then the next object's, beside it (a digest list request names it too)
      const got = await asked;
      if ('filled' in got && got.filled() < got.bytes.byteLength) {
        const ctx = { record, t0, proxyId, logs, stats };
        if (!q.share) return streamBody(res.status(200), got, { start: 0, end: got.bytes.byteLength }, ctx);
        if (!(await settlesWithin(got.done, SHARE_LIST_WAIT_MS))) return streamBody(res, got, shareHead(res, got.bytes.byteLength, q.share), ctx);
      }
      obj = 'done' in got ? await got.done : got;
      // a digest list says the object's size: an origin that did not (`bytes a-b/*`) is asked for all of it
      if (obj.range && obj.total === null && voted) obj = await objects.get(q.url, { signal: abort.signal, downloadId });
    } catch (err) {
      if (err.code !== 'ERR_ABORTED') sendError(res, err);
      if (!q.digests) logs.record({ ...record, durationMs: performance.now() - t0, error: { code: err.code ?? 'ERR_INTERNAL', message: err.message } });
      return;
    }
    const waited = { t0, objectAt: performance.now() };
    // a range of a single-file stream: the next one is likely asked next
    if (obj.range && closed) objects.readAheadAfter(q.url, closed, obj.total);
    /** the copy: its bytes, their object offset, the object's size (null: the origin did not say) */
    const copy = obj.range ? { bytes: obj.bytes, at: obj.range.start, total: obj.total } : { bytes: obj.bytes, at: 0, total: obj.bytes.byteLength };
    // the copy as digest lists need it: with its size (a voted range's size is known, fetched whole above otherwise)
    const listed = /** @type {{ bytes: Uint8Array, at: number, total: number }} */ (copy);
    const span = closed ? blocksOfRange(closed) : WHOLE_OBJECT_BLOCKS;
    if (q.digests) return sendDigests(res, listed, span, obj, proxyId, req.method === 'HEAD', waited);
    res.setHeader('Accept-Ranges', 'bytes');
    // the digest list with the body: the client's vote needs no second request (hashed once per
    // copy); a list too long to carry is not hashed here: the client asks for it with &digests=1
    if ((voted || !closed) && copy.total !== null && spanListBytes(span, copy.total) <= MAX_INLINE_DIGEST_LIST_BYTES) {
      res.setHeader(DIGEST_LIST_HEADER, Buffer.from(encodedDigestsOf(listed, span)).toString('base64'));
    }
    // after the hashing above: its time is the answer's preparation
    setAnswerHeads(res, { contentType: obj.contentType, proxyId, serverFetchMs: obj.serverFetchMs, fromCache: obj.fromCache, ...waited });
    const isHead = req.method === 'HEAD';
    /** The body (nothing for HEAD) and the proxy record. @param {Uint8Array} body @param {number | null} objectBytes */
    const send = (body, objectBytes) => {
      res.setHeader('Content-Length', String(body.byteLength));
      const sent = isHead ? 0 : body.byteLength;
      const log = onceAnswered(res, (error) => logs.record({ ...record, objectBytes, packetsSent: 1, bytesSent: sent, durationMs: performance.now() - t0,
        serverFetchMs: obj.serverFetchMs, fromCache: obj.fromCache, error }));
      res.end(isHead ? undefined : body, () => {
        stats.bytesSent += sent;
        log(null);
      });
    };
    /** @param {string} range @param {string} size */
    const unsatisfiable = (range, size) => {
      res.setHeader('Content-Range', `bytes */${size}`);
      sendError(res, { code: 'ERR_RANGE_NOT_SATISFIABLE', message: `range ${range} is outside 0..${size}` });
      logs.record({ ...record, objectBytes: copy.total, durationMs: performance.now() - t0, serverFetchMs: obj.serverFetchMs,
        fromCache: obj.fromCache, error: { code: 'ERR_RANGE_NOT_SATISFIABLE', message: `range ${range}` } });
    };
    if (q.share) return send(shareBody(res, copy.bytes, q.share), copy.bytes.byteLength);
    const size = copy.total ?? '*';
    if (closed) {
      // the asked bytes of the copy (which holds them, up to the object's end)
      const copyEnd = copy.at + copy.bytes.byteLength; // exclusive
      if (closed.start >= copyEnd) return unsatisfiable(`bytes=${closed.start}-${closed.end}`, String(size));
      const end = Math.min(closed.end, copyEnd - 1);
      res.status(206).setHeader('Content-Range', `bytes ${closed.start}-${end}/${size}`);
      return send(copy.bytes.subarray(closed.start - copy.at, end - copy.at + 1), copy.total);
    }
    // no closed range: the copy is the whole object
    const whole = copy.bytes.byteLength;
    /** @type {any} */
    const parsed = rangeHeader === undefined ? -2 : parseRange(whole, rangeHeader, { combine: true });
    if (parsed === -1) return unsatisfiable(String(rangeHeader), String(whole));
    // -2 (malformed) and multi-range requests get the whole object: RFC 9110 lets a server ignore Range.
    if (typeof parsed === 'object' && parsed.type === 'bytes' && parsed.length === 1) {
      const { start, end } = parsed[0];
      res.status(206).setHeader('Content-Range', `bytes ${start}-${end}/${whole}`);
      return send(copy.bytes.subarray(start, end + 1), whole);
    }
    res.status(200);
    send(copy.bytes, whole);
  };
}

/**
 * Whether `promise` settles (either way) within `ms`.
 * @param {Promise<unknown>} promise @param {number} ms
 */
function settlesWithin(promise, ms) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  return Promise.race([promise.then(() => true, () => true), late]).finally(() => clearTimeout(timer));
}

/**
 * Bytes [start, end) of an object while its origin still sends it (the whole object, a first
 * share or a range; the caller set the status and the span's heads): the head now (the object's
 * length from the origin's), the bytes as they come, the end with the span's last byte. An origin
 * that fails before then cuts the body short: the client sees a truncated response, as from a
 * proxy that died.
 * @param {import('express').Response} res
 * @param {import('../objects/object-store.js').OpenedObject} opened
 * @param {{ start: number, end: number }} span
 * @param {{ record: object, t0: number, proxyId: string, logs: { record: (r: object) => void }, stats: { bytesSent: number } }} o
 */
function streamBody(res, opened, { start, end }, { record, t0, proxyId, logs, stats }) {
  const size = opened.bytes.byteLength;
  res.setHeader('Accept-Ranges', 'bytes');
  setAnswerHeads(res, { contentType: opened.contentType, proxyId, serverFetchMs: opened.headMs, fromCache: false, t0, objectAt: performance.now() });
  res.setHeader('Content-Length', String(end - start));
  res.flushHeaders(); // the size and the share now, though its first bytes may come late: the client asks for the list
  let sent = start;
  let ended = false;
  const log = onceAnswered(res, (error) => logs.record({
    ...record, objectBytes: size, packetsSent: 1, bytesSent: sent - start, durationMs: performance.now() - t0, serverFetchMs: opened.headMs, fromCache: false, error,
  }));
  const finish = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    res.end(() => log(null));
  };
  const more = () => {
    const filled = Math.min(opened.filled(), end);
    if (filled > sent && !res.destroyed) {
      res.write(opened.bytes.subarray(sent, filled)); // the buffer only grows past `filled`: the view stays valid
      stats.bytesSent += filled - sent;
      sent = filled;
    }
    if (sent === end) finish();
  };
  const unsubscribe = opened.subscribe(more);
  res.on('close', unsubscribe);
  more();
  opened.done.then(more, (/** @type {any} */ err) => {
    if (ended) return; // its bytes were all sent: a list's request reports the failure
    ended = true;
    unsubscribe();
    res.destroy(err);
    log({ code: typeof err?.code === 'string' ? err.code : 'ERR_ORIGIN', message: String(err?.message ?? err) });
  });
}

/**
 * `log`, once: with the caller's error (null: answered), or with ERR_ABORTED when the client closes
 * the request first (a Range-split source that lost its range's race to a copy). A proxy record
 * then tells of every request a download made, however it ended.
 * @param {import('express').Response} res
 * @param {(error: { code: string, message: string } | null) => void} log
 * @returns {(error: { code: string, message: string } | null) => void}
 */
function onceAnswered(res, log) {
  let logged = false;
  const once = (/** @type {{ code: string, message: string } | null} */ error) => {
    if (logged) return;
    logged = true;
    log(error);
  };
  res.once('close', () => { if (!res.writableFinished) once({ code: 'ERR_ABORTED', message: 'the client closed the request before its answer was sent' }); });
  return once;
}

/**
 * Share i of the object's blocks (first-shares.js): its status (206, or 200 for an empty share)
 * and heads set, SHARE_HEADER naming its blocks either way; returns its bytes.
 * @param {import('express').Response} res @param {Uint8Array} object  the whole object
 * @param {{index: number, weights: number[], cap: number}} share
 */
function shareBody(res, object, share) {
  const { start, end } = shareHead(res, object.byteLength, share);
  return object.subarray(start, end);
}

/**
 * A share's status and heads for an object of `size` bytes; returns its bytes' span [start, end).
 * @param {import('express').Response} res @param {number} size
 * @param {{index: number, weights: number[], cap: number}} share
 */
function shareHead(res, size, share) {
  const blocks = shareOf(blockCount(size), share.weights, share.cap, share.index);
  res.setHeader(SHARE_HEADER, `${blocks.start}-${blocks.end}`);
  const { start, end } = shareBytes(blocks, size);
  if (end === start) res.status(200);
  else res.status(206).setHeader('Content-Range', `bytes ${start}-${end - 1}/${size}`);
  return { start, end };
}

/**
 * Parse at the edge: every query field is checked for type, length and range.
 * @param {any} query
 */
function readQuery(query) {
  const one = (/** @type {string} */ k) => (typeof query[k] === 'string' ? query[k] : undefined);
  for (const k of ['url', 'downloadId', 'mode', 'sourceIndex', 'n', 'digests', 'span', 'next', 'share', 'weights', 'cap']) {
    if (query[k] !== undefined && typeof query[k] !== 'string') return { ok: false, message: `${k} must be given once` };
  }
  const url = one('url');
  if (url === undefined || url === '') return { ok: false, message: 'url is required' };
  const downloadId = one('downloadId') ?? null;
  if (downloadId !== null && !ID_PATTERN.test(downloadId)) return { ok: false, message: 'downloadId must be 1..128 of [A-Za-z0-9._:-]' };
  const mode = one('mode') ?? 'http';
  if (mode !== 'http' && !HTTP_MODES.has(mode)) return { ok: false, message: 'mode must be parallel-http or range-http' };
  const sourceIndex = intOrNull(one('sourceIndex'), 0, MAX_SOURCES - 1);
  const n = intOrNull(one('n'), 1, MAX_SOURCES);
  if (sourceIndex === false || n === false) return { ok: false, message: `sourceIndex and n must be whole numbers below ${MAX_SOURCES + 1}` };
  const digests = one('digests');
  if (digests !== undefined && digests !== '1') return { ok: false, message: 'digests must be 1' };
  const spanText = one('span');
  const span = spanText === undefined ? null : parseClosedRange(`bytes=${spanText}`);
  if (spanText !== undefined && (digests !== '1' || !span)) return { ok: false, message: 'span must be a-b (bytes, a <= b) with digests=1' };
  const next = one('next') || null;
  const share = readShare(one('share'), one('weights'), one('cap'));
  if (share === false) return { ok: false, message: `share=i, weights=w0,w1,… and cap=C go together: i below the number of weights (at most ${MAX_SOURCES}), each weight 1..${MAX_SHARE_WEIGHT}, C 1..${MAX_SHARE_CAP_BLOCKS}` };
  if (share && (mode !== 'range-http' || digests !== undefined)) return { ok: false, message: 'share goes with mode=range-http, without digests' };
  return { ok: true, url, downloadId, mode, sourceIndex, n, digests: digests === '1', span, next, share };
}

/**
 * A first share's fields (all or none). null: none asked; false: malformed.
 * @param {string | undefined} index @param {string | undefined} weights @param {string | undefined} cap
 * @returns {{index: number, weights: number[], cap: number} | null | false}
 */
function readShare(index, weights, cap) {
  if (index === undefined && weights === undefined && cap === undefined) return null;
  if (index === undefined || weights === undefined || cap === undefined) return false;
  const w = weights.split(',');
  if (w.length > MAX_SOURCES || !w.every((x) => /^\d{1,10}$/.test(x))) return false;
  const ws = w.map(Number);
  const i = intOrNull(index, 0, ws.length - 1);
  const c = /^\d{1,5}$/.test(cap) ? Number(cap) : 0;
  if (typeof i !== 'number' || !ws.every((x) => x >= 1 && x <= MAX_SHARE_WEIGHT) || c < 1 || c > MAX_SHARE_CAP_BLOCKS) return false;
  return { index: i, weights: ws, cap: c };
}

/** @param {string | undefined} v @param {number} lo @param {number} hi @returns {number | null | false} */
function intOrNull(v, lo, hi) {
  if (v === undefined) return null;
  if (!/^\d{1,3}$/.test(v)) return false;
  const n = Number(v);
  return n >= lo && n <= hi ? n : false;
}
