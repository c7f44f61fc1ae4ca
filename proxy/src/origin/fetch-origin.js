import http from 'node:http';
import https from 'node:https';
import { codedError } from '@mutp/common/errors';
import { parseContentRange } from '@mutp/common/byte-ranges';
import { checkAddress } from '../ssrf/address-policy.js';
import { checkTargetUrl } from '../ssrf/target-url.js';
import { createGuardedLookup } from './guarded-lookup.js';
import { GrowingBody } from './growing-body.js';
import { ORIGIN_IDLE_TIMEOUT_MS } from '@mutp/protocol/constants';
import { cacheHeadersOf } from '../objects/freshness.js';

// Redirects are followed by hand so every hop passes the same checks; 5 is what browsers'
// and curl's defaults stay well above while no video CDN needs more.
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * @typedef {{ allowPrivate?: boolean, isHostAllowed: (url: URL) => boolean,
 *             maxObjectBytes: number, originTimeoutMs: number, originIdleTimeoutMs?: number }} FetchPolicy
 *   originIdleTimeoutMs: a body that sends nothing this long fails (default ORIGIN_IDLE_TIMEOUT_MS)
 * @typedef {{ start: number, end: number }} ByteRange  end inclusive
 * @typedef {{ etag: string | null, lastModified: string | null }} Validators  a kept copy's, for a conditional request
 * @typedef {{ bytes: Uint8Array, contentType: string, finalUrl: string, status: number,
 *             range: ByteRange | null, total: number | null, notModified: boolean,
 *             cacheHeaders: import('../objects/freshness.js').CacheHeaders, receivedAt: number }} OriginObject
 *   range: the bytes are this range of the object (the origin answered 206), null: the whole
 *   object; total: the object's size (from Content-Range; null when the origin does not say);
 *   notModified: the origin answered 304 to a conditional request (no bytes: the kept copy is
 *   current); cacheHeaders: the fields that say how long it may be kept (freshness.js);
 *   receivedAt: wall-clock ms when the response's head came
 */

/**
 * Creates the origin fetcher: GET of the whole object, or of one byte range, through the SSRF guard.
 * @param {FetchPolicy} policy
 */
export function createOriginFetcher(policy) {
  const lookup = createGuardedLookup(policy);
  // keepAlive: a proxy fetches many chunks from the same CDN host.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };

  /**
   * @param {string} urlText
   * @param {{ signal?: AbortSignal, range?: ByteRange | null, onBody?: (body: GrowingBody) => void, validators?: Validators | null }} [opts]
   *   range: ask the origin for these bytes only (an origin that ignores it answers the whole object: `range` null); onBody:
   *   the body as it comes, once the final response's head is in, when it says its length (a body of unknown length is
   *   not); validators: ask only whether a kept copy with these is current (If-None-Match / If-Modified-Since; a 304 then
   *   resolves with notModified and no bytes)
   * @returns {Promise<OriginObject>}
   */
  async function fetchOrigin(urlText, opts = {}) {
    const timeout = AbortSignal.timeout(policy.originTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const range = opts.range ?? null;
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.end >= range.start)) {
      throw codedError('ERR_BAD_RANGE', 'range must be whole bytes start ≤ end');
    }
    let url = checkTargetUrl(urlText, policy);
    const conditional = conditionalHeaders(opts.validators ?? null);
    for (let hop = 0; ; hop++) {
      const res = await requestOnce(url, signal, range, opts.onBody, conditional);
      if (!REDIRECT_STATUSES.has(res.status)) {
        return { ...res.body, finalUrl: url.href, status: res.status };
      }
      if (hop >= MAX_REDIRECTS) throw codedError('ERR_TOO_MANY_REDIRECTS', `more than ${MAX_REDIRECTS} redirects`);
      if (!res.location) throw codedError('ERR_ORIGIN_STATUS', `redirect ${res.status} without Location`, { status: res.status });
      let next;
      try {
        next = new URL(res.location, url).href;
      } catch {
        throw codedError('ERR_BAD_URL', 'redirect Location does not parse');
      }
      url = checkTargetUrl(next, policy);
    }
  }

  /**
   * One request. Resolves with a redirect's Location, or the whole 2xx body, or a 304's heads.
   * @param {URL} url
   * @param {AbortSignal} signal
   * @param {ByteRange | null} range
   * @param {((body: GrowingBody) => void) | undefined} onBody
   * @param {Record<string, string>} conditional  If-None-Match / If-Modified-Since, or none
   * @returns {Promise<{ status: number, location?: string, body?: Omit<OriginObject, 'finalUrl' | 'status'> }>}
   */
  function requestOnce(url, signal, range, onBody, conditional) {
    return new Promise((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const fail = (/** @type {Error} */ err) => {
        req.destroy();
        reject(err);
      };
      const onAbort = () => {
        const timedOut = signal.reason?.name === 'TimeoutError';
        fail(timedOut
          ? codedError('ERR_ORIGIN_TIMEOUT', `origin did not answer within ${policy.originTimeoutMs} ms`)
          : codedError('ERR_ABORTED', 'fetch aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const req = mod.request(url, {
        method: 'GET',
        agent: agents[url.protocol],
        // identity: the cached bytes are served with Range, which must count raw bytes.
        headers: { 'accept-encoding': 'identity', 'user-agent': 'mutp-proxy', ...(range ? { range: `bytes=${range.start}-${range.end}` } : {}), ...conditional },
      });
      req.on('socket', (socket) => {
        // Belt and braces after the guarded lookup: judge the peer actually connected to.
        const judge = () => {
          const verdict = checkAddress(socket.remoteAddress ?? '', policy);
          if (!verdict.ok) fail(codedError('ERR_SSRF_BLOCKED', `connected to a refused address: ${verdict.reason}`));
        };
        if (socket.remoteAddress) judge();
        else socket.once('connect', judge);
      });
      req.on('error', (err) => {
        signal.removeEventListener('abort', onAbort);
        const coded = /** @type {any} */ (err).code;
        if (coded === 'ERR_SSRF_BLOCKED' || coded === 'ERR_ORIGIN_TIMEOUT' || coded === 'ERR_ABORTED'
          || coded === 'ERR_ORIGIN_TOO_LARGE') return reject(err);
        reject(codedError('ERR_ORIGIN_UNREACHABLE', `origin request failed: ${err.message}`, { cause: err }));
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const receivedAt = Date.now();
        const cacheHeaders = cacheHeadersOf(res.headers);
        if (REDIRECT_STATUSES.has(status)) {
          res.resume();
          signal.removeEventListener('abort', onAbort);
          return resolve({ status, location: res.headers.location });
        }
        if (status === 304 && Object.keys(conditional).length > 0) {
          res.resume();
          signal.removeEventListener('abort', onAbort);
          return resolve({ status, body: { bytes: new Uint8Array(0), contentType: '', range: null, total: null, notModified: true, cacheHeaders, receivedAt } });
        }
        if (status === 416 && range) {
          res.resume();
          return fail(codedError('ERR_RANGE_NOT_SATISFIABLE', `the origin has no bytes ${range.start}-${range.end}`));
        }
        if (status < 200 || status > 299) {
          res.resume();
          return fail(codedError('ERR_ORIGIN_STATUS', `origin answered ${status}`, { status }));
        }
        // 206 to our range: it must be the bytes asked for (the end may stop at the object's end)
        /** @type {{start: number, end: number, total: number | null} | null} */
        let got = null;
        if (status === 206) {
          got = range ? parseContentRange(res.headers['content-range']) : null;
          const fits = got && range && got.start === range.start && got.end <= range.end &&
            (got.end === range.end || got.total === got.end + 1);
          if (!fits) {
            res.resume();
            return fail(codedError('ERR_ORIGIN_RANGE', `origin answered 206 with Content-Range ${res.headers['content-range'] ?? '(none)'} to bytes=${range?.start}-${range?.end}`));
          }
        }
        // asked for identity, an origin that encodes anyway sends bytes that are not the object a
        // browser gets (it decodes them), nor ones a range can count: the client fetches it directly
        const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
        if (encoding !== '' && encoding !== 'identity') {
          res.resume();
          return fail(codedError('ERR_ORIGIN_ENCODED', `origin sent Content-Encoding ${encoding.slice(0, 40)} to a request for identity`));
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > policy.maxObjectBytes) {
          return fail(codedError('ERR_ORIGIN_TOO_LARGE', `object is ${declared} B, cap is ${policy.maxObjectBytes} B`));
        }
        const contentType = res.headers['content-type'] ?? 'application/octet-stream';
        // a said length: the body goes straight into a buffer of that size, readable as it comes
        const growing = Number.isSafeInteger(declared) && declared >= 0 && res.headers['content-length'] !== undefined
          ? new GrowingBody(declared, { contentType, range: got ? { start: got.start, end: got.end } : null, total: got ? got.total : declared })
          : null;
        /** @type {Buffer[]} */
        const chunks = [];
        let total = 0;
        const idleMs = policy.originIdleTimeoutMs ?? ORIGIN_IDLE_TIMEOUT_MS;
        const idle = () => fail(codedError('ERR_ORIGIN_TIMEOUT', `origin sent nothing for ${idleMs} ms after ${total} B of its body`));
        const idleTimer = setTimeout(idle, idleMs);
        res.on('close', () => clearTimeout(idleTimer));
        res.on('data', (chunk) => {
          idleTimer.refresh();
          total += chunk.length;
          if (total > policy.maxObjectBytes) {
            return fail(codedError('ERR_ORIGIN_TOO_LARGE', `object exceeds the cap of ${policy.maxObjectBytes} B`));
          }
          if (!growing) chunks.push(chunk);
          else if (!growing.append(chunk)) fail(codedError('ERR_ORIGIN_LENGTH', `origin sent more than its Content-Length of ${declared} B`));
        });
        res.on('end', () => {
          signal.removeEventListener('abort', onAbort);
          if (!res.complete) return reject(codedError('ERR_ORIGIN_UNREACHABLE', 'origin closed the response early'));
          if (growing && !growing.complete) return reject(codedError('ERR_ORIGIN_LENGTH', `origin sent ${growing.filled} of its Content-Length of ${declared} B`));
          const bytes = growing ? growing.bytes : (() => {
            const buf = Buffer.concat(chunks, total);
            return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
          })();
          if (got && bytes.byteLength !== got.end - got.start + 1) {
            return reject(codedError('ERR_ORIGIN_RANGE', `origin sent ${bytes.byteLength} bytes for Content-Range bytes ${got.start}-${got.end}`));
          }
          resolve({
            status,
            body: { bytes, contentType, range: got ? { start: got.start, end: got.end } : null, total: got ? got.total : bytes.byteLength, notModified: false, cacheHeaders, receivedAt },
          });
        });
        res.on('error', (err) => fail(codedError('ERR_ORIGIN_UNREACHABLE', `origin response failed: ${err.message}`)));
        if (growing) onBody?.(growing);
      });
      req.end();
    });
  }

  return {
    fetchOrigin,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/**
 * The request fields that ask whether a kept copy is current (none: fetch it).
 * @param {{ etag: string | null, lastModified: string | null } | null} validators
 * @returns {Record<string, string>}
 */
function conditionalHeaders(validators) {
  /** @type {Record<string, string>} */
  const out = {};
  if (validators?.etag) out['if-none-match'] = validators.etag;
  else if (validators?.lastModified) out['if-modified-since'] = validators.lastModified; // ignored beside If-None-Match (RFC 9110 §13.1.3)
  return out;
}
