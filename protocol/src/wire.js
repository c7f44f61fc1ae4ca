// The MUTP wire format: one encoder and one parser per message, shared by proxy, client and
// simulator. Big-endian integers. Byte layouts are documented in docs/protocol.md.
// decodeMessage never throws: bad bytes give {ok: false, error: {code, message}}.
import {
  WIRE_VERSION, MAX_DATAGRAM_BYTES, COMMON_HEADER_BYTES, DATA_HEADER_BYTES, CODED_HEADER_BYTES,
  REQUEST_HEADER_BYTES, META_HEADER_BYTES, FEEDBACK_HEADER_BYTES, HINT_HEADER_BYTES, TIMING_BYTES, BUNDLE_HEADER_BYTES, MAX_BUNDLE_BYTES, MSG, MODE, SCHEDULER,
  MAX_URL_BYTES, MAX_SOURCES, MAX_OBJECT_BYTES, MAX_ERROR_CODE_BYTES, MAX_ERROR_MESSAGE_BYTES,
  MAX_GENERATION_SIZE, MAX_WINDOW_PACKETS, MIN_PAYLOAD_BYTES,
} from './constants.js';
import { codedError } from '@mutp/common/errors';
import { CHECKSUM_ALGO_SHA256, CHECKSUM_ENTRY_BYTES } from './integrity/checksums.js';

/**
 * The messages on the wire, one shape per `type` (docs/protocol.md has the byte layouts).
 * @typedef {'uncoded' | 'coded'} ModeName
 * @typedef {'paper' | 'share'} SchedulerName
 * @typedef {{ payloadSize: number, window: number, generationSize: number, feedbackEvery: number, surplus: number,
 *   scheduler?: SchedulerName }} WireParams
 * @typedef {{ type: 'request', downloadId: number, url: string, method?: 'GET' | 'HEAD', range?: { start: number, end: number } | null,
 *   mode: ModeName, sourceIndex: number, sourceCount: number, seed?: number, params: WireParams, bundles?: boolean, streamed?: boolean,
 *   timing?: boolean, holds?: boolean }} RequestMessage
 *   client → proxy: serve this object as source sourceIndex of sourceCount; bundles: the client takes its packets in bundles;
 *   streamed: the client takes a streamed meta (the proxy may send before it has the whole object); timing: the client
 *   takes a timing message; holds (coded): the client may hold a decoded generation, its full DoF in feedback, and
 *   fail it later (its checksum taken off the thread): it asks whether the proxy sends such a generation again
 * @typedef {{ algo: number, entryBytes: number, first: number, values: Uint8Array }} ChecksumSlice  entries first.. of the checksum table
 * @typedef {{ type: 'meta', downloadId: number, mode: ModeName, totalSize: number, payloadSize: number, packetCount: number,
 *   generationSize: number, generationCount: number, window: number, feedbackEvery: number, serverFetchMs?: number | null,
 *   checksums?: ChecksumSlice | null, streamed?: boolean, keepsHeld?: boolean }} MetaMessage  proxy → client: the object's
 *   layout, before any data; streamed: the checksum table follows in slices as the proxy gets the object's bytes;
 *   keepsHeld (only to a request that `holds`): this sender keeps a generation above the client's base in its
 *   window however full its DoF, and sends it again when its DoF drops
 * @typedef {{ type: 'data', downloadId: number, seq: number, index: number, payload: Uint8Array }} DataMessage  uncoded packet `index`
 * @typedef {{ type: 'coded', downloadId: number, seq: number, generation: number, symbols: number, codedPayload: Uint8Array }} CodedMessage
 *   coefficients (symbols bytes) then the coded payload
 * @typedef {{ type: 'feedback', downloadId: number, mode: 'uncoded', seq: number, echo: number[], base: number,
 *   bits: number, bitmap: Uint8Array, dof?: null, contrib?: null }} UncodedFeedbackMessage  bitmap: packets base.. received
 * @typedef {{ type: 'feedback', downloadId: number, mode: 'coded', seq: number, echo: number[], base: number,
 *   dof: number[], contrib: Uint8Array, bits?: number, bitmap?: null }} CodedFeedbackMessage
 *   dof per generation from base; contrib: per generation and source, the useful packets it gave
 * @typedef {UncodedFeedbackMessage | CodedFeedbackMessage} FeedbackMessage
 * @typedef {{ type: 'done', downloadId: number }} DoneMessage  client → proxy: stop sending
 * @typedef {{ type: 'error', downloadId: number, code: string, message: string }} ErrorMessage  proxy → client: cannot serve
 * @typedef {{ type: 'hint', downloadId: number, url: string }} HintMessage
 *   client → proxy, after its request: the object the client will likely ask next; fetch it meanwhile
 * @typedef {{ type: 'timing', downloadId: number, originMs: number, prepareMs: number }} TimingMessage
 *   proxy → client that asked, before its first meta: how long this request waited at the proxy for the origin (0: cached;
 *   a streamed meta: to the origin's response head) and then to prepare its answer (checksums, sender set-up)
 * @typedef {{ type: 'bundle', downloadId: number, parts: Uint8Array[] }} BundleMessage
 *   proxy → client that asked for bundles: data or coded datagrams, each whole (decode each with decodeMessage);
 *   written by createBundleWriter, not encodeMessage
 * @typedef {RequestMessage | MetaMessage | DataMessage | CodedMessage | FeedbackMessage | DoneMessage | ErrorMessage | HintMessage | BundleMessage | TimingMessage} WireMessage
 * @typedef {{ ok: true, msg: WireMessage, error?: undefined } | { ok: false, error: { code: string, message: string }, msg?: undefined }} DecodeResult
 */

/** serverFetchMs on the wire when the proxy does not know it (u32 all ones). */
const SERVER_FETCH_UNKNOWN = 0xffffffff;

const TYPE_NAMES = ['', 'request', 'meta', 'data', 'coded', 'feedback', 'done', 'error', 'hint', 'bundle', 'timing'];
const MODE_NAMES = ['', 'uncoded', 'coded'];
const SCHEDULER_NAMES = ['paper', 'share'];
const METHODS = ['', 'GET', 'HEAD'];
const TWO_32 = 2 ** 32;
const ERROR_CODE_RE = /^[A-Z][A-Z0-9_]*$/;
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** @param {Uint8Array} b @param {number} o */
const u16 = (b, o) => (b[o] << 8) | b[o + 1];
/** @param {Uint8Array} b @param {number} o */
const u32 = (b, o) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
/** @param {Uint8Array} b @param {number} o @param {number} v */
function put16(b, o, v) { b[o] = v >>> 8; b[o + 1] = v; }
/** @param {Uint8Array} b @param {number} o @param {number} v */
function put32(b, o, v) { b[o] = v >>> 24; b[o + 1] = v >>> 16; b[o + 2] = v >>> 8; b[o + 3] = v; }
/** 64-bit unsigned as two u32 halves; values above 2^53 − 1 are refused by the parser. */
/** @param {Uint8Array} b @param {number} o @param {number} v */
function put64(b, o, v) { put32(b, o, Math.floor(v / TWO_32)); put32(b, o + 4, v % TWO_32); }
/** @param {Uint8Array} b @param {number} o */
const u64 = (b, o) => u32(b, o) * TWO_32 + u32(b, o + 4);

/**
 * @param {Uint8Array} b
 * @param {number} type
 * @param {number} downloadId
 */
function header(b, type, downloadId) {
  b[0] = WIRE_VERSION;
  b[1] = type;
  put32(b, 2, downloadId);
}

/** @param {boolean} ok @param {string} what */
function need(ok, what) {
  if (!ok) throw codedError('ERR_BAD_MESSAGE', `cannot encode: ${what}`);
}

/** @param {unknown} v @param {number} lo @param {number} hi */
const isInt = (v, lo, hi) => Number.isInteger(v) && /** @type {number} */ (v) >= lo && /** @type {number} */ (v) <= hi;

/**
 * Header of a data message, written into a datagram whose payload the caller fills from byte
 * DATA_HEADER_BYTES (the senders' allocation-free path; values are the sender's own).
 * @param {Uint8Array} b @param {number} downloadId @param {number} seq @param {number} index
 */
export function writeDataHeader(b, downloadId, seq, index) {
  header(b, MSG.data, downloadId);
  put32(b, 6, seq);
  put32(b, 10, index);
}

/**
 * Header of a coded message; the caller writes coefficients + payload from CODED_HEADER_BYTES.
 * @param {Uint8Array} b @param {number} downloadId @param {number} seq @param {number} generation @param {number} symbols
 */
export function writeCodedHeader(b, downloadId, seq, generation, symbols) {
  header(b, MSG.coded, downloadId);
  put32(b, 6, seq);
  put32(b, 10, generation);
  put16(b, 14, symbols);
}

/**
 * Encode one message object into a datagram. Throws ERR_BAD_MESSAGE for an object that cannot
 * be represented (a caller bug, never peer data).
 * @param {WireMessage} msg
 * @returns {Uint8Array}
 */
export function encodeMessage(msg) {
  need(msg && typeof msg === 'object', 'message must be an object');
  const type = Object.hasOwn(MSG, msg.type) ? MSG[msg.type] : undefined;
  need(type !== undefined, `unknown type ${msg.type}`);
  need(isInt(msg.downloadId, 0, 0xffffffff), 'downloadId must be a u32');
  switch (msg.type) {
    case 'request': return encodeRequest(msg);
    case 'meta': return encodeMeta(msg);
    case 'data': {
      need(isInt(msg.seq, 0, 0xffffffff) && isInt(msg.index, 0, 0xffffffff), 'seq/index must be u32');
      need(msg.payload instanceof Uint8Array && msg.payload.length >= 1 && msg.payload.length <= MAX_DATAGRAM_BYTES - DATA_HEADER_BYTES, 'payload size');
      const b = new Uint8Array(DATA_HEADER_BYTES + msg.payload.length);
      header(b, MSG.data, msg.downloadId);
      put32(b, 6, msg.seq);
      put32(b, 10, msg.index);
      b.set(msg.payload, DATA_HEADER_BYTES);
      return b;
    }
    case 'coded': {
      need(isInt(msg.seq, 0, 0xffffffff) && isInt(msg.generation, 0, 0xffffffff), 'seq/generation must be u32');
      need(isInt(msg.symbols, 1, MAX_GENERATION_SIZE), 'symbols');
      const p = msg.codedPayload;
      need(p instanceof Uint8Array && p.length > msg.symbols && CODED_HEADER_BYTES + p.length <= MAX_DATAGRAM_BYTES, 'codedPayload size');
      const b = new Uint8Array(CODED_HEADER_BYTES + p.length);
      header(b, MSG.coded, msg.downloadId);
      put32(b, 6, msg.seq);
      put32(b, 10, msg.generation);
      put16(b, 14, msg.symbols);
      b.set(p, CODED_HEADER_BYTES);
      return b;
    }
    case 'feedback': return encodeFeedback(msg);
    case 'done': {
      const b = new Uint8Array(COMMON_HEADER_BYTES);
      header(b, MSG.done, msg.downloadId);
      return b;
    }
    case 'error': {
      const code = String(msg.code ?? '');
      need(code.length <= MAX_ERROR_CODE_BYTES && ERROR_CODE_RE.test(code), 'error code must match [A-Z][A-Z0-9_]*');
      /** @type {Uint8Array} */
      let m = utf8.encode(String(msg.message ?? ''));
      if (m.length > MAX_ERROR_MESSAGE_BYTES) m = truncateUtf8(m, MAX_ERROR_MESSAGE_BYTES);
      const b = new Uint8Array(COMMON_HEADER_BYTES + 1 + code.length + 2 + m.length);
      header(b, MSG.error, msg.downloadId);
      b[6] = code.length;
      for (let i = 0; i < code.length; i++) b[7 + i] = code.charCodeAt(i);
      put16(b, 7 + code.length, m.length);
      b.set(m, 9 + code.length);
      return b;
    }
    case 'hint': {
      const url = utf8.encode(String(msg.url ?? ''));
      need(url.length >= 1 && url.length <= MAX_URL_BYTES, `url must be 1..${MAX_URL_BYTES} UTF-8 bytes`);
      const b = new Uint8Array(HINT_HEADER_BYTES + url.length);
      header(b, MSG.hint, msg.downloadId);
      put16(b, 6, url.length);
      b.set(url, HINT_HEADER_BYTES);
      return b;
    }
    case 'timing': {
      need(isInt(msg.originMs, 0, 0xffffffff) && isInt(msg.prepareMs, 0, 0xffffffff), 'originMs and prepareMs must be u32 ms');
      const b = new Uint8Array(TIMING_BYTES);
      header(b, MSG.timing, msg.downloadId);
      put32(b, 6, msg.originMs);
      put32(b, 10, msg.prepareMs);
      return b;
    }
  }
  throw codedError('ERR_BAD_MESSAGE', 'unreachable');
}

/** Cut UTF-8 at a character boundary. @param {Uint8Array} m @param {number} max */
function truncateUtf8(m, max) {
  let n = max;
  while (n > 0 && (m[n] & 0xc0) === 0x80) n--; // step back off continuation bytes
  return m.subarray(0, n);
}

/**
 * Writes a download's data or coded datagrams into bundles, in place: `alloc` hands the sender
 * (nextDatagram's allocator) the space for its next datagram inside the bundle.
 * @param {number} downloadId
 * @param {number} [maxBytes]  the largest bundle (MAX_BUNDLE_BYTES)
 */
export function createBundleWriter(downloadId, maxBytes = MAX_BUNDLE_BYTES) {
  need(isInt(downloadId, 0, 0xffffffff), 'downloadId must be a u32');
  need(isInt(maxBytes, BUNDLE_HEADER_BYTES + 2 + COMMON_HEADER_BYTES + 1, MAX_BUNDLE_BYTES), `maxBytes must be at most ${MAX_BUNDLE_BYTES}`);
  const b = new Uint8Array(maxBytes);
  let at = BUNDLE_HEADER_BYTES;
  let count = 0;
  const fits = (/** @type {number} */ n) => count < 255 && at + 2 + n <= maxBytes;
  return {
    /** datagrams written since the last take() */
    get count() { return count; },
    /** Is there room for one more datagram of n bytes? @param {number} n */
    fits,
    /** Space for the next datagram, n bytes (≤ MAX_DATAGRAM_BYTES); the caller checked fits(n). @param {number} n */
    alloc(n) {
      need(isInt(n, COMMON_HEADER_BYTES + 1, MAX_DATAGRAM_BYTES) && fits(n), 'no room for the datagram');
      put16(b, at, n);
      const part = b.subarray(at + 2, at + 2 + n);
      at += 2 + n;
      count++;
      return part;
    },
    /** The message to send: the bundle, or its datagram alone when it holds one; null when empty. Starts afresh. */
    take() {
      if (count === 0) return null;
      let out;
      if (count === 1) out = b.slice(BUNDLE_HEADER_BYTES + 2, at);
      else {
        header(b, MSG.bundle, downloadId);
        b[6] = count;
        out = b.slice(0, at);
      }
      at = BUNDLE_HEADER_BYTES;
      count = 0;
      return out;
    },
  };
}

/** @param {RequestMessage} msg */
function encodeRequest(msg) {
  const url = utf8.encode(String(msg.url ?? ''));
  need(url.length >= 1 && url.length <= MAX_URL_BYTES, `url must be 1..${MAX_URL_BYTES} UTF-8 bytes`);
  const mode = modeCode(msg.mode);
  need(mode !== undefined, 'mode must be uncoded|coded');
  const method = METHODS.indexOf(msg.method ?? 'GET');
  need(method > 0, 'method must be GET|HEAD');
  need(isInt(msg.sourceCount, 1, MAX_SOURCES) && isInt(msg.sourceIndex, 0, msg.sourceCount - 1), 'sourceIndex/sourceCount');
  const p = msg.params ?? /** @type {WireParams} */ ({});
  const schedName = p.scheduler ?? 'paper';
  const sched = Object.hasOwn(SCHEDULER, schedName) ? SCHEDULER[schedName] : undefined;
  need(sched !== undefined, 'scheduler');
  need(isInt(p.payloadSize, MIN_PAYLOAD_BYTES, MAX_DATAGRAM_BYTES) && isInt(p.window, 1, MAX_WINDOW_PACKETS) &&
    isInt(p.generationSize, 1, MAX_GENERATION_SIZE) && isInt(p.feedbackEvery, 1, 65535) && isInt(p.surplus, 0, 255), 'params');
  need(isInt(msg.seed ?? 0, 0, 0xffffffff), 'seed must be a u32');
  const range = msg.range ?? null;
  if (range) need(isInt(range.start, 0, Number.MAX_SAFE_INTEGER) && isInt(range.end, range.start, Number.MAX_SAFE_INTEGER), 'range');
  const b = new Uint8Array(REQUEST_HEADER_BYTES + url.length);
  header(b, MSG.request, msg.downloadId);
  b[6] = /** @type {number} */ (mode);
  b[7] = msg.sourceIndex;
  b[8] = msg.sourceCount;
  b[9] = range ? 1 : 0;
  b[10] = method;
  b[11] = /** @type {number} */ (sched);
  put16(b, 12, p.payloadSize);
  put16(b, 14, p.window);
  put16(b, 16, p.generationSize);
  put16(b, 18, p.feedbackEvery);
  b[20] = p.surplus;
  // what the client takes: bit 0 bundles, bit 1 a streamed meta, bit 2 a timing message, bit 3 it holds generations
  // (proxies that predate a bit ignore it)
  b[21] = (msg.bundles ? 1 : 0) | (msg.streamed ? 2 : 0) | (msg.timing ? 4 : 0) | (msg.holds ? 8 : 0);
  put32(b, 22, msg.seed ?? 0);
  put64(b, 26, range ? range.start : 0);
  put64(b, 34, range ? range.end : 0);
  put16(b, 42, url.length);
  b.set(url, REQUEST_HEADER_BYTES);
  return b;
}

/** @param {MetaMessage} msg */
function encodeMeta(msg) {
  const mode = modeCode(msg.mode);
  need(mode !== undefined, 'mode');
  need(isInt(msg.totalSize, 0, MAX_OBJECT_BYTES) && isInt(msg.payloadSize, 1, 0xffff) && isInt(msg.packetCount, 0, 0xffffffff) &&
    isInt(msg.generationSize, 1, 0xffff) && isInt(msg.generationCount, 0, 0xffffffff) && isInt(msg.window, 1, 0xffff) &&
    isInt(msg.feedbackEvery, 1, 0xffff), 'meta fields');
  const fetchMs = msg.serverFetchMs ?? null;
  need(fetchMs === null || (Number.isFinite(fetchMs) && fetchMs >= 0), 'serverFetchMs must be a number ≥ 0 or null');
  const cs = msg.checksums ?? null;
  if (cs) {
    need(isInt(cs.algo, 0, 255) && isInt(cs.entryBytes, 1, 255) && isInt(cs.first, 0, 0xffffffff) && cs.values instanceof Uint8Array &&
      cs.values.length % cs.entryBytes === 0 && cs.values.length / cs.entryBytes <= 0xffff, 'checksums');
  }
  const extra = cs ? 8 + cs.values.length : 0;
  need(META_HEADER_BYTES + extra <= MAX_DATAGRAM_BYTES, 'checksums do not fit one datagram: send several meta messages');
  const b = new Uint8Array(META_HEADER_BYTES + extra);
  header(b, MSG.meta, msg.downloadId);
  b[6] = /** @type {number} */ (mode);
  b[7] = (cs ? 1 : 0) | (msg.streamed ? 2 : 0) | (msg.keepsHeld ? 4 : 0);
  put32(b, 8, msg.totalSize);
  put16(b, 12, msg.payloadSize);
  put32(b, 14, msg.packetCount);
  put16(b, 18, msg.generationSize);
  put32(b, 20, msg.generationCount);
  put16(b, 24, msg.window);
  put16(b, 26, msg.feedbackEvery);
  put32(b, 28, fetchMs === null ? SERVER_FETCH_UNKNOWN : Math.min(SERVER_FETCH_UNKNOWN - 1, Math.round(fetchMs)));
  if (cs) {
    const o = META_HEADER_BYTES;
    b[o] = cs.algo;
    b[o + 1] = cs.entryBytes;
    put32(b, o + 2, cs.first);
    put16(b, o + 6, cs.values.length / cs.entryBytes);
    b.set(cs.values, o + 8);
  }
  return b;
}

/**
 * Bytes of a feedback message: the header, one u32 echo per source, base (u32) and count (u16),
 * then an uncoded bitmap of `count` bits or a coded DoF (u16) and per-source contribution (u8)
 * per generation. It must fit one datagram, which bounds the window.
 * @param {'uncoded'|'coded'} mode @param {number} sourceCount @param {number} count bits (uncoded) or generations (coded)
 */
export function feedbackBytes(mode, sourceCount, count) {
  const body = mode === 'uncoded' ? Math.ceil(count / 8) : (2 + sourceCount) * count;
  return FEEDBACK_HEADER_BYTES + 4 * sourceCount + 6 + body;
}

/** @param {FeedbackMessage} msg */
function encodeFeedback(msg) {
  const mode = modeCode(msg.mode);
  need(mode !== undefined, 'mode');
  const echo = msg.echo;
  need(echo && isInt(echo.length, 1, MAX_SOURCES), 'echo: one entry per source');
  need(isInt(msg.seq, 0, 0xffffffff) && isInt(msg.base, 0, 0xffffffff), 'seq/base');
  const n = echo.length;
  const o = FEEDBACK_HEADER_BYTES + 4 * n;
  let count, bodyLen;
  if (msg.mode === 'uncoded') {
    count = msg.bits;
    need(isInt(count, 0, 0xffff) && msg.bitmap instanceof Uint8Array && msg.bitmap.length >= Math.ceil(count / 8), 'bitmap');
    bodyLen = Math.ceil(count / 8);
  } else {
    count = msg.dof.length;
    need(isInt(count, 0, 0xffff), 'dof');
    need(msg.contrib instanceof Uint8Array && msg.contrib.length === count * n, 'contrib: one byte per generation and source');
    bodyLen = (2 + n) * count;
  }
  need(feedbackBytes(msg.mode, n, count) <= MAX_DATAGRAM_BYTES, 'feedback does not fit one datagram');
  const b = new Uint8Array(o + 6 + bodyLen);
  header(b, MSG.feedback, msg.downloadId);
  b[6] = /** @type {number} */ (mode);
  b[7] = n;
  put32(b, 8, msg.seq);
  for (let i = 0; i < n; i++) put32(b, FEEDBACK_HEADER_BYTES + 4 * i, echo[i]);
  put32(b, o, msg.base);
  put16(b, o + 4, count);
  if (msg.mode === 'uncoded') {
    b.set(msg.bitmap.subarray(0, bodyLen), o + 6);
    const rest = count & 7; // clear bits past `count` so equal feedback encodes equally
    if (rest) b[o + 6 + bodyLen - 1] &= (1 << rest) - 1;
  } else {
    for (let i = 0; i < count; i++) put16(b, o + 6 + 2 * i, msg.dof[i]);
    b.set(msg.contrib, o + 6 + 2 * count);
  }
  return b;
}

/** The wire code of a mode name, undefined for anything else. @param {unknown} name */
const modeCode = (name) => (name === 'uncoded' || name === 'coded' ? MODE[name] : undefined);

/** @param {WireMessage} msg @returns {DecodeResult} */
const okMsg = (msg) => ({ ok: true, msg });

/** @param {string} code @param {string} message */
const fail = (code, message) => ({ ok: /** @type {false} */ (false), error: { code, message } });

/**
 * Parse one datagram. Checks type, length and every range it can check without session state.
 * Never throws.
 * @param {Uint8Array} bytes
 * @returns {DecodeResult}
 */
export function decodeMessage(bytes) {
  try {
    return decodeUnchecked(bytes);
  } catch (err) {
    // defensive: a parser bug must still not escape the connection handler
    return fail('ERR_BAD_MESSAGE', `parser error: ${/** @type {Error} */ (err)?.message}`);
  }
}

/** @param {Uint8Array} b @returns {DecodeResult} */
function decodeUnchecked(b) {
  if (!(b instanceof Uint8Array)) return fail('ERR_BAD_MESSAGE', 'datagram must be a Uint8Array');
  if (b.length < COMMON_HEADER_BYTES) return fail('ERR_TRUNCATED', `datagram of ${b.length} bytes is shorter than the header`);
  const max = b[1] === MSG.bundle ? MAX_BUNDLE_BYTES : MAX_DATAGRAM_BYTES;
  if (b.length > max) return fail('ERR_TOO_LARGE', `datagram of ${b.length} bytes exceeds ${max}`);
  if (b[0] !== WIRE_VERSION) return fail('ERR_BAD_VERSION', `wire version ${b[0]}, expected ${WIRE_VERSION}`);
  const typeName = TYPE_NAMES[b[1]];
  if (!typeName) return fail('ERR_UNKNOWN_TYPE', `unknown message type ${b[1]}`);
  const downloadId = u32(b, 2);
  switch (typeName) {
    case 'data': {
      if (b.length <= DATA_HEADER_BYTES) return fail('ERR_TRUNCATED', 'data message without payload');
      return okMsg({ type: 'data', downloadId, seq: u32(b, 6), index: u32(b, 10), payload: b.subarray(DATA_HEADER_BYTES) });
    }
    case 'coded': {
      if (b.length < CODED_HEADER_BYTES) return fail('ERR_TRUNCATED', 'coded header truncated');
      const symbols = u16(b, 14);
      if (symbols < 1 || symbols > MAX_GENERATION_SIZE) return fail('ERR_BAD_FIELD', `symbols ${symbols} out of range`);
      if (b.length <= CODED_HEADER_BYTES + symbols) return fail('ERR_TRUNCATED', 'coded message without payload');
      return okMsg({ type: 'coded', downloadId, seq: u32(b, 6), generation: u32(b, 10), symbols, codedPayload: b.subarray(CODED_HEADER_BYTES) });
    }
    case 'feedback': return decodeFeedback(b, downloadId);
    case 'request': return decodeRequest(b, downloadId);
    case 'meta': return decodeMeta(b, downloadId);
    case 'done':
      if (b.length !== COMMON_HEADER_BYTES) return fail('ERR_BAD_LENGTH', 'done carries no body');
      return okMsg({ type: 'done', downloadId });
    case 'error': {
      if (b.length < COMMON_HEADER_BYTES + 3) return fail('ERR_TRUNCATED', 'error message truncated');
      const cl = b[6];
      if (cl < 1 || cl > MAX_ERROR_CODE_BYTES) return fail('ERR_BAD_FIELD', 'error code length out of range');
      if (b.length < 9 + cl) return fail('ERR_TRUNCATED', 'error message truncated');
      const code = String.fromCharCode(...b.subarray(7, 7 + cl));
      if (!ERROR_CODE_RE.test(code)) return fail('ERR_BAD_FIELD', 'error code is not [A-Z][A-Z0-9_]*');
      const ml = u16(b, 7 + cl);
      if (b.length !== 9 + cl + ml) return fail('ERR_BAD_LENGTH', 'error message length mismatch');
      let message;
      try { message = utf8Strict.decode(b.subarray(9 + cl)); } catch { return fail('ERR_BAD_FIELD', 'error message is not UTF-8'); }
      return okMsg({ type: 'error', downloadId, code, message });
    }
    case 'bundle': return decodeBundle(b, downloadId);
    case 'hint': {
      if (b.length < HINT_HEADER_BYTES) return fail('ERR_TRUNCATED', 'hint header truncated');
      const ul = u16(b, 6);
      if (ul < 1 || ul > MAX_URL_BYTES || b.length !== HINT_HEADER_BYTES + ul) return fail('ERR_BAD_LENGTH', 'hint url length mismatch');
      let url;
      try { url = utf8Strict.decode(b.subarray(HINT_HEADER_BYTES)); } catch { return fail('ERR_BAD_FIELD', 'hint url is not UTF-8'); }
      return okMsg({ type: 'hint', downloadId, url });
    }
    case 'timing':
      if (b.length !== TIMING_BYTES) return fail('ERR_BAD_LENGTH', `timing must be ${TIMING_BYTES} bytes`);
      return okMsg({ type: 'timing', downloadId, originMs: u32(b, 6), prepareMs: u32(b, 10) });
  }
  return fail('ERR_UNKNOWN_TYPE', 'unreachable');
}

/** @param {Uint8Array} b @param {number} downloadId */
function decodeRequest(b, downloadId) {
  if (b.length < REQUEST_HEADER_BYTES) return fail('ERR_TRUNCATED', 'request header truncated');
  const mode = MODE_NAMES[b[6]];
  if (!mode) return fail('ERR_BAD_FIELD', `unknown mode ${b[6]}`);
  const sourceIndex = b[7];
  const sourceCount = b[8];
  if (sourceCount < 1 || sourceCount > MAX_SOURCES || sourceIndex >= sourceCount) return fail('ERR_BAD_FIELD', 'sourceIndex/sourceCount out of range');
  if (b[9] & ~1) return fail('ERR_BAD_FIELD', 'unknown request flags');
  const method = METHODS[b[10]];
  if (!method) return fail('ERR_BAD_FIELD', `unknown method ${b[10]}`);
  const scheduler = SCHEDULER_NAMES[b[11]];
  if (!scheduler) return fail('ERR_BAD_FIELD', `unknown scheduler ${b[11]}`);
  const params = {
    payloadSize: u16(b, 12), window: u16(b, 14), generationSize: u16(b, 16), feedbackEvery: u16(b, 18), surplus: b[20], scheduler,
  };
  if (params.payloadSize < MIN_PAYLOAD_BYTES || params.window < 1 || params.window > MAX_WINDOW_PACKETS ||
    params.generationSize < 1 || params.generationSize > MAX_GENERATION_SIZE || params.feedbackEvery < 1) {
    return fail('ERR_BAD_FIELD', 'request parameters out of range');
  }
  const seed = u32(b, 22);
  const bundles = (b[21] & 1) === 1; // other bits: later abilities, ignored
  const streamed = (b[21] & 2) === 2;
  const timing = (b[21] & 4) === 4;
  const holds = (b[21] & 8) === 8;
  let range = null;
  if (b[9] & 1) {
    const start = u64(b, 26);
    const end = u64(b, 34);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return fail('ERR_BAD_FIELD', 'range out of range');
    range = { start, end };
  }
  const ul = u16(b, 42);
  if (ul < 1 || b.length !== REQUEST_HEADER_BYTES + ul) return fail('ERR_BAD_LENGTH', 'url length mismatch');
  let url;
  try { url = utf8Strict.decode(b.subarray(REQUEST_HEADER_BYTES)); } catch { return fail('ERR_BAD_FIELD', 'url is not UTF-8'); }
  /** @type {RequestMessage} */
  const msg = { type: 'request', downloadId, url, method: /** @type {'GET' | 'HEAD'} */ (method), range, mode: /** @type {ModeName} */ (mode), sourceIndex, sourceCount, seed,
    params: { ...params, scheduler: /** @type {SchedulerName} */ (scheduler) }, bundles, streamed, timing, holds };
  return okMsg(msg);
}

/** Split a bundle into its datagrams (views into b); each must be a data or coded datagram. @param {Uint8Array} b @param {number} downloadId */
function decodeBundle(b, downloadId) {
  if (b.length < BUNDLE_HEADER_BYTES) return fail('ERR_TRUNCATED', 'bundle header truncated');
  const count = b[6];
  if (count < 1) return fail('ERR_BAD_FIELD', 'empty bundle');
  /** @type {Uint8Array[]} */
  const parts = [];
  let o = BUNDLE_HEADER_BYTES;
  for (let k = 0; k < count; k++) {
    if (o + 2 > b.length) return fail('ERR_TRUNCATED', 'bundle truncated');
    const len = u16(b, o);
    if (len <= COMMON_HEADER_BYTES || len > MAX_DATAGRAM_BYTES || o + 2 + len > b.length) return fail('ERR_BAD_LENGTH', 'bundle part length out of range');
    const part = b.subarray(o + 2, o + 2 + len);
    if (part[1] !== MSG.data && part[1] !== MSG.coded) return fail('ERR_BAD_FIELD', 'a bundle holds data or coded datagrams only');
    parts.push(part);
    o += 2 + len;
  }
  if (o !== b.length) return fail('ERR_BAD_LENGTH', 'bytes after the last bundle part');
  return okMsg({ type: 'bundle', downloadId, parts });
}

/** @param {Uint8Array} b @param {number} downloadId */
function decodeMeta(b, downloadId) {
  if (b.length < META_HEADER_BYTES) return fail('ERR_TRUNCATED', 'meta truncated');
  const mode = MODE_NAMES[b[6]];
  if (!mode) return fail('ERR_BAD_FIELD', `unknown mode ${b[6]}`);
  if (b[7] & ~7) return fail('ERR_BAD_FIELD', 'unknown meta flags');
  /** @type {MetaMessage} */
  const msg = {
    type: 'meta', downloadId, mode: /** @type {ModeName} */ (mode),
    totalSize: u32(b, 8), payloadSize: u16(b, 12), packetCount: u32(b, 14), generationSize: u16(b, 18),
    generationCount: u32(b, 20), window: u16(b, 24), feedbackEvery: u16(b, 26),
    serverFetchMs: u32(b, 28) === SERVER_FETCH_UNKNOWN ? null : u32(b, 28), checksums: null, streamed: (b[7] & 2) === 2,
    keepsHeld: (b[7] & 4) === 4,
  };
  if (msg.totalSize > MAX_OBJECT_BYTES) return fail('ERR_OBJECT_TOO_LARGE', `object of ${msg.totalSize} bytes exceeds the limit`);
  if (msg.payloadSize < MIN_PAYLOAD_BYTES || msg.payloadSize > MAX_DATAGRAM_BYTES - DATA_HEADER_BYTES) return fail('ERR_BAD_FIELD', 'payloadSize out of range');
  if (msg.packetCount !== Math.ceil(msg.totalSize / msg.payloadSize)) return fail('ERR_BAD_FIELD', 'packetCount does not match totalSize/payloadSize');
  const g = msg.generationSize;
  if (g < 1 || g > MAX_GENERATION_SIZE || (mode === 'uncoded' && g !== 1)) return fail('ERR_BAD_FIELD', 'generationSize out of range');
  if (mode === 'coded' && CODED_HEADER_BYTES + g + msg.payloadSize > MAX_DATAGRAM_BYTES) return fail('ERR_BAD_FIELD', 'generation does not fit a datagram');
  if (msg.generationCount !== Math.ceil(msg.packetCount / g)) return fail('ERR_BAD_FIELD', 'generationCount does not match packetCount/g');
  if (msg.window < 1 || msg.window > MAX_WINDOW_PACKETS || msg.feedbackEvery < 1) return fail('ERR_BAD_FIELD', 'window/feedbackEvery out of range');
  if (b[7] & 1) {
    const o = META_HEADER_BYTES;
    if (b.length < o + 8) return fail('ERR_TRUNCATED', 'checksum block truncated');
    const entryBytes = b[o + 1];
    const first = u32(b, o + 2);
    const count = u16(b, o + 6);
    if (b[o] !== CHECKSUM_ALGO_SHA256 || entryBytes !== CHECKSUM_ENTRY_BYTES) return fail('ERR_BAD_FIELD', 'unknown checksum algorithm or entry size');
    if (count < 1 || first + count > msg.generationCount) return fail('ERR_BAD_FIELD', 'checksum entries outside the object');
    if (b.length !== o + 8 + entryBytes * count) return fail('ERR_BAD_LENGTH', 'checksum block length mismatch');
    msg.checksums = { algo: b[o], entryBytes, first, values: b.subarray(o + 8) };
  } else if (b.length !== META_HEADER_BYTES) {
    return fail('ERR_BAD_LENGTH', 'meta length mismatch');
  }
  return okMsg(msg);
}

/** @param {Uint8Array} b @param {number} downloadId */
function decodeFeedback(b, downloadId) {
  if (b.length < FEEDBACK_HEADER_BYTES) return fail('ERR_TRUNCATED', 'feedback truncated');
  const mode = MODE_NAMES[b[6]];
  if (!mode) return fail('ERR_BAD_FIELD', `unknown mode ${b[6]}`);
  const n = b[7];
  if (n < 1 || n > MAX_SOURCES) return fail('ERR_BAD_FIELD', 'feedback source count out of range');
  const o = FEEDBACK_HEADER_BYTES + 4 * n;
  if (b.length < o + 6) return fail('ERR_TRUNCATED', 'feedback truncated');
  const echo = new Array(n);
  for (let i = 0; i < n; i++) echo[i] = u32(b, FEEDBACK_HEADER_BYTES + 4 * i);
  const base = u32(b, o);
  const count = u16(b, o + 4);
  const seq = u32(b, 8);
  if (mode === 'uncoded') {
    if (b.length !== o + 6 + Math.ceil(count / 8)) return fail('ERR_BAD_LENGTH', 'bitmap length mismatch');
    return okMsg({ type: 'feedback', downloadId, mode, seq, echo, base, bits: count, bitmap: b.subarray(o + 6), dof: null, contrib: null });
  }
  if (b.length !== o + 6 + (2 + n) * count) return fail('ERR_BAD_LENGTH', 'dof list length mismatch');
  const dof = new Array(count);
  for (let i = 0; i < count; i++) dof[i] = u16(b, o + 6 + 2 * i);
  return okMsg({ type: 'feedback', downloadId, mode: 'coded', seq, echo, base, bits: 0, bitmap: null, dof, contrib: b.subarray(o + 6 + 2 * count) });
}
