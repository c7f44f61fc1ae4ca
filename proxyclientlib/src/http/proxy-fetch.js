// One HTTP request to one proxy's `GET /fetch?url=…`, with the response checked at the edge:
// status, Content-Range/Content-Length against the asked range, a size cap, and a stall timer.
import { codedError } from '@mutp/common/errors';
import { DIGEST_LIST_HEADER, MAX_INLINE_DIGEST_LIST_BYTES, SHARE_HEADER, parseShareHeader, shareBytes } from '@mutp/protocol/http';
import { ORIGIN_FETCH_TIMEOUT_MS } from '@mutp/protocol/constants';
import { yieldToHttpClient } from '#http-turn';
import { parseContentRange } from '@mutp/common/byte-ranges';
import { base64Chars, bytesOfBase64 } from '@mutp/common/base64';
import { concat, jsonCapped } from '../capped-body.js';
import { isOriginCode } from '../errors.js';

export const STALL_TIMEOUT_MS = 5000; // no body byte from a proxy for this long → that proxy failed (a killed/frozen proxy must not hang the download); its head may take the origin fetch limit
export const MAX_RESPONSE_BYTES = 512 * 1024 * 1024; // 512 MiB: a video chunk is a few MB; a peer may not make us buffer forever
const MAX_ERROR_BODY_BYTES = 4096; // proxy error bodies are small JSON objects

/** A body a proxy cut short or let stall: what a proxy does when its origin fails mid-body. */
const CUT_BODY_CODES = new Set(['ERR_PROXY_CONNECTION_LOST', 'ERR_PROXY_STALLED']);

/**
 * Why a proxy failed, given the error of its body and that of its digest list: a body cut short
 * while the same proxy's list says its origin fetch failed is the origin's failure (a proxy that
 * streams a body can only close it when its origin stops; the list request reports why).
 * @template {{code: string, message: string}} E @param {E | null} bodyError @param {E | null | undefined} listError
 * @returns {E | null}
 */
export function withOriginCause(bodyError, listError) {
  return bodyError && listError && CUT_BODY_CODES.has(bodyError.code) && isOriginCode(listError.code) ? listError : bodyError;
}

/**
 * A proxy's URL as the base its endpoints resolve against: with a trailing slash, so a path (a
 * proxy behind a reverse proxy's prefix) is kept.
 * @param {string} proxyUrl
 */
export function proxyBase(proxyUrl) {
  return proxyUrl.endsWith('/') ? proxyUrl : `${proxyUrl}/`;
}

/**
 * The URL of one of a proxy's endpoints: relative to the proxy's URL, which may carry a path.
 * @param {string} proxyUrl @param {string} endpoint  e.g. 'fetch', 'healthz'
 */
export function proxyEndpoint(proxyUrl, endpoint) {
  return new URL(endpoint, proxyBase(proxyUrl));
}

/**
 * The URL of a proxy's fetch endpoint for an origin URL.
 * @param {string} proxyUrl  e.g. http://127.0.0.1:9001
 * @param {string} url       origin URL
 * @param {Record<string, string | number>} [tags]  downloadId, mode, sourceIndex, n: the proxy logs them in its record
 */
export function fetchEndpoint(proxyUrl, url, tags = {}) {
  const u = proxyEndpoint(proxyUrl, 'fetch');
  u.searchParams.set('url', url);
  for (const [k, v] of Object.entries(tags)) u.searchParams.set(k, String(v));
  return u.toString();
}

/**
 * A piece of a response body: a view of the received chunk (which proxyFetch keeps for the result
 * with `keepBody`: copy it, never transfer or change its buffer).
 * @typedef {{offset: number, bytes: Uint8Array}} BodyPiece
 */

/**
 * @typedef {object} ProxyFetchResult
 * @property {Uint8Array | null} bytes  the body: exactly the asked range (or the whole object); null without `keepBody`
 * @property {number | null} total    the object's full size when the proxy said it
 * @property {number | null} serverFetchMs  from the proxy's `Server-Timing: fetch;dur=…`, when present
 */

/**
 * Fetch a byte range (or the whole object) through one proxy.
 * @param {object} o
 * @param {typeof fetch} o.fetch
 * @param {string} o.proxyUrl
 * @param {string} o.url
 * @param {{start: number, end: number} | null} o.range   end inclusive, or null for the whole object
 * @param {AbortSignal} o.signal
 * @param {(n: number, piece: BodyPiece | null) => void} o.onBytes  called for every received body chunk: its size
 *   (gross bytes) and the part of it inside the asked range, checked, at its offset in the result's `bytes`
 *   (null when none, or when the chunk overran the announced size)
 * @param {(resultBytes: number | null, head: {serverFetchMs: number | null, total: number | null, digests: Uint8Array | null,
 *   wait: {originMs: number, prepareMs: number} | null, share: {start: number, end: number} | null}) => void} [o.onHead]  wait: parseWait;
 *   share: the blocks a share response carries (null: not asked, or a proxy that does not know shares sent the whole object)
 *   called once the headers are checked, with the size the result will have when the proxy said it (else null), the proxy's
 *   origin fetch time, the object's full size when the proxy said it, and the proxy's encoded digest list when it sent one
 *   (DIGEST_LIST_HEADER, unchecked beyond its size: decodeDigestList judges it)
 * @param {number} [o.stallTimeoutMs]  the longest gap between body bytes
 * @param {number} [o.headTimeoutMs]   the longest wait for the answer's head: a proxy answers an object it
 *   fetches from the origin once it has it all, so by default the proxies' origin fetch limit (or the stall, if longer)
 * @param {number} [o.maxBytes]
 * @param {Record<string, string | number>} [o.tags]  see fetchEndpoint
 * @param {boolean} [o.share]  the tags ask for a first share (range null): its answer is a 206 of the blocks SHARE_HEADER
 *   names, or an empty 200
 * @param {boolean} [o.keepBody]  the result carries the body; else only onBytes sees it (a body download reads its
 *   pieces as they come: joining them at the end would copy every byte once more and hold every chunk until then)
 * @returns {Promise<ProxyFetchResult>}
 */
export async function proxyFetch({ fetch, proxyUrl, url, range, signal, onBytes, onHead, stallTimeoutMs = STALL_TIMEOUT_MS,
  headTimeoutMs = Math.max(stallTimeoutMs, ORIGIN_FETCH_TIMEOUT_MS), maxBytes = MAX_RESPONSE_BYTES, tags, share = false, keepBody = false }) {
  const stall = new AbortController();
  let timer = null;
  const arm = (ms = stallTimeoutMs) => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(codedError('ERR_PROXY_STALLED', `no data from ${proxyUrl} for ${ms} ms`)), ms);
  };
  const both = AbortSignal.any([signal, stall.signal]);
  arm(headTimeoutMs);
  try {
    /** @type {Record<string, string>} */
    const headers = {};
    if (range) headers.range = `bytes=${range.start}-${range.end}`;
    let res;
    try {
      res = await fetch(fetchEndpoint(proxyUrl, url, tags), { headers, signal: both });
    } catch (err) {
      throw rethrow(err, both, 'ERR_PROXY_UNREACHABLE', `cannot reach proxy ${proxyUrl}`);
    }
    arm(); // the head is in: from here the body's bytes keep the stall timer
    if (!res.ok) throw await proxyErrorFromResponse(res, proxyUrl);

    const contentRange = parseContentRange(res.headers.get('content-range'));
    const lengthHeader = res.headers.get('content-length');
    const contentLength = lengthHeader != null && /^\d{1,15}$/.test(lengthHeader) ? Number(lengthHeader) : null;
    let sliceFrom = 0; // when a proxy ignores Range and sends 200, we cut the asked range out ourselves
    let expected = contentLength;
    let total = null;
    const shared = share ? checkedShare(res, contentRange, contentLength, proxyUrl) : null;
    if (res.status === 206) {
      if (!contentRange) throw codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: 206 without a valid Content-Range`);
      if (range && (contentRange.start !== range.start || contentRange.end !== Math.min(range.end, (contentRange.total ?? Infinity) - 1))) {
        throw codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: asked bytes ${range.start}-${range.end}, got ${contentRange.start}-${contentRange.end}`);
      }
      if (!range && !shared) throw codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: 206 to a request without Range`);
      expected = contentRange.end - contentRange.start + 1;
      total = contentRange.total;
    } else {
      total = shared ? null : contentLength; // an empty share's 200 says nothing of the object's size
      if (range) sliceFrom = range.start;
    }
    if (expected !== null && expected > maxBytes) throw codedError('ERR_PROXY_TOO_LARGE', `${proxyUrl}: ${expected} bytes exceeds the ${maxBytes} byte cap`);
    const serverFetchMs = parseServerFetchMs(res.headers.get('x-mutp-server-fetch-ms')) ?? parseServerTiming(res.headers.get('server-timing'));
    // a 200 to a Range request is cut to the range below
    onHead?.(expected === null || res.status === 206 || !range ? expected : Math.max(0, Math.min(range.end + 1, expected) - range.start),
      { serverFetchMs, total, digests: parseInlineDigests(res.headers.get(DIGEST_LIST_HEADER)), wait: parseWait(res.headers.get('server-timing')), share: shared });

    const chunks = [];
    let received = 0;
    if (res.body) {
      const reader = res.body.getReader();
      try {
        for (;;) {
          let step;
          try {
            step = await reader.read();
          } catch (err) {
            throw rethrow(err, both, 'ERR_PROXY_CONNECTION_LOST', `connection to ${proxyUrl} lost mid-response`);
          }
          if (step.done) break;
          arm();
          const at = received;
          received += step.value.byteLength;
          const overran = received > (expected ?? maxBytes) || received > maxBytes;
          onBytes(step.value.byteLength, overran ? null : bodyPiece(step.value, at, sliceFrom, range && res.status !== 206 ? range.end + 1 : Infinity));
          if (overran) {
            throw codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: sent more than the ${expected ?? maxBytes} bytes announced`);
          }
          if (keepBody) chunks.push(step.value);
          // every announced byte is in: stop here. Node 20's fetch can leave the closing read
          // pending forever when the request is aborted now (from onBytes, or by the caller).
          if (received === expected) break;
        }
      } finally {
        reader.releaseLock();
      }
      // the caller's next request to this proxy (Range-split: the next range) reuses the connection
      await yieldToHttpClient();
    }
    if (both.aborted) throw rethrow(null, both, 'ERR_ABORTED', 'download aborted');
    if (expected !== null && received !== expected) {
      throw codedError('ERR_PROXY_CONNECTION_LOST', `${proxyUrl}: response ended after ${received} of ${expected} bytes`);
    }
    const cut = res.status !== 206 && range;
    if (cut && range.start >= received) throw codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: object shorter than the asked range`);
    const body = keepBody ? concat(chunks, received) : null;
    const bytes = body && cut ? body.subarray(sliceFrom, Math.min(range.end + 1, received)) : body;
    return { bytes, total, serverFetchMs };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A share answer's blocks (SHARE_HEADER), checked against its status and Content-Range: a 206 of
 * exactly those blocks' bytes, or a 200 with no body for an empty share. Null: the header is
 * absent (a proxy that does not know shares answers the whole object).
 * @param {Response} res @param {{start: number, end: number, total: number | null} | null} contentRange
 * @param {number | null} contentLength @param {string} proxyUrl
 * @returns {{start: number, end: number} | null}
 */
function checkedShare(res, contentRange, contentLength, proxyUrl) {
  const header = res.headers.get(SHARE_HEADER);
  if (header === null) return null;
  const blocks = parseShareHeader(header);
  const bad = (/** @type {string} */ why) => codedError('ERR_PROXY_BAD_RESPONSE', `${proxyUrl}: share ${header.slice(0, 40)}: ${why}`);
  if (!blocks) throw bad('not a-b');
  if (blocks.start === blocks.end) {
    if (res.status !== 200 || contentLength !== 0) throw bad('an empty share with a body');
    return blocks;
  }
  if (res.status !== 206 || !contentRange || contentRange.total === null) throw bad('a share without its Content-Range');
  const bytes = shareBytes(blocks, contentRange.total);
  if (contentRange.start !== bytes.start || contentRange.end !== bytes.end - 1) {
    throw bad(`Content-Range ${contentRange.start}-${contentRange.end} is not those blocks`);
  }
  return blocks;
}

/**
 * Turn a fetch/read failure into a coded error, preferring the abort reason when we aborted.
 * @param {unknown} err
 * @param {AbortSignal} signal
 * @param {string} code
 * @param {string} message
 */
function rethrow(err, signal, code, message) {
  if (signal.aborted) {
    const reason = signal.reason;
    if (reason && typeof reason === 'object' && typeof reason.code === 'string') return reason;
    return codedError('ERR_ABORTED', 'download aborted');
  }
  const cause = /** @type {{cause?: {code?: string}, message?: string}} */ (err);
  const detail = cause?.cause?.code ?? cause?.message ?? '';
  return codedError(code, detail ? `${message} (${detail})` : message);
}

/**
 * A proxy's JSON error `{error: {code, message}}` as a coded error (codes from the proxy are kept, checked for shape).
 * @param {Response} res
 * @param {string} proxyUrl
 */
export async function proxyErrorFromResponse(res, proxyUrl) {
  let code = 'ERR_PROXY_STATUS';
  let message = `${proxyUrl} answered HTTP ${res.status}`;
  try {
    const body = /** @type {any} */ (await jsonCapped(res, MAX_ERROR_BODY_BYTES));
    const e = body?.error;
    if (e && typeof e.code === 'string' && /^ERR_[A-Z0-9_]{1,60}$/.test(e.code)) code = e.code;
    if (e && typeof e.message === 'string') message = `${proxyUrl}: ${e.message.slice(0, 300)}`;
  } catch {
    // not JSON, or longer than any error of ours: keep the status-based error
  }
  return codedError(code, message, { status: res.status });
}

/**
 * The proxy's `X-MUTP-Server-Fetch-Ms: 123.4` header, checked; null when absent or malformed.
 * @param {string | null} header
 */
export function parseServerFetchMs(header) {
  if (!header || !/^\d{1,9}(\.\d{1,6})?$/.test(header.trim())) return null;
  return Number(header.trim());
}

const MAX_INLINE_DIGEST_CHARS = base64Chars(MAX_INLINE_DIGEST_LIST_BYTES); // base64 of the largest inline list

/**
 * The proxy's inline digest list (base64) as bytes; null when absent, too long or not base64.
 * @param {string | null} header
 * @returns {Uint8Array | null}
 */
export function parseInlineDigests(header) {
  return bytesOfBase64(header, MAX_INLINE_DIGEST_CHARS);
}

/**
 * One metric's duration in a `Server-Timing` header (`name;dur=123.4`), else null.
 * @param {string | null} header @param {string} name  a token ([a-z]+)
 */
function serverTimingDur(header, name) {
  if (!header) return null;
  const m = new RegExp(`(?:^|,)\\s*${name}\\s*;(?:[^,]*;)?\\s*dur=([0-9]{1,9}(?:\\.[0-9]{1,6})?)`).exec(header);
  return m ? Number(m[1]) : null;
}

/**
 * `Server-Timing: fetch;dur=123.4` → 123.4 (the proxy's origin fetch time), else null.
 * @param {string | null} header
 */
export const parseServerTiming = (header) => serverTimingDur(header, 'fetch');

/**
 * What this request waited for at the proxy (`Server-Timing: origin;dur=…, prepare;dur=…`): the origin
 * (0 from its cache), then preparing the answer (digests). Null when the proxy did not say (one that predates it).
 * @param {string | null} header
 * @returns {{originMs: number, prepareMs: number} | null}
 */
export function parseWait(header) {
  const originMs = serverTimingDur(header, 'origin');
  const prepareMs = serverTimingDur(header, 'prepare');
  return originMs === null || prepareMs === null ? null : { originMs, prepareMs };
}

/**
 * The part of one received body chunk that belongs to the result, at its offset in the result:
 * all of it, unless the proxy sent the whole object to a Range request (200) and we cut.
 * @param {Uint8Array} chunk
 * @param {number} at       the chunk's offset in the response body
 * @param {number} from     the response body offset of the result's first byte
 * @param {number} endBody  the response body offset after the result's last byte
 * @returns {BodyPiece | null}
 */
function bodyPiece(chunk, at, from, endBody) {
  const lo = Math.max(at, from);
  const hi = Math.min(at + chunk.byteLength, endBody);
  if (hi <= lo) return null;
  return { offset: lo - from, bytes: lo === at && hi === at + chunk.byteLength ? chunk : chunk.subarray(lo - at, hi - at) };
}

