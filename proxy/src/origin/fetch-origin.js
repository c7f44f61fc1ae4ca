import http from 'node:http';
import https from 'node:https';
import { codedError } from '@mutp/common/errors';
import { checkAddress } from '../ssrf/address-policy.js';
import { checkTargetUrl } from '../ssrf/target-url.js';
import { createGuardedLookup } from './guarded-lookup.js';

// Redirects are followed by hand so every hop passes the same checks; 5 is what browsers'
// and curl's defaults stay well above while no video CDN needs more.
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * @typedef {{ allowPrivate?: boolean, isHostAllowed: (url: URL) => boolean,
 *             maxObjectBytes: number, originTimeoutMs: number }} FetchPolicy
 * @typedef {{ bytes: Uint8Array, contentType: string, finalUrl: string, status: number }} OriginObject
 */

/**
 * Creates the origin fetcher: whole-object GET through the SSRF guard.
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
   * @param {{ signal?: AbortSignal }} [opts]
   * @returns {Promise<OriginObject>}
   */
  async function fetchOrigin(urlText, opts = {}) {
    const timeout = AbortSignal.timeout(policy.originTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    let url = checkTargetUrl(urlText, policy);
    for (let hop = 0; ; hop++) {
      const res = await requestOnce(url, signal);
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
   * One request. Resolves with a redirect's Location, or the whole 2xx body.
   * @param {URL} url
   * @param {AbortSignal} signal
   * @returns {Promise<{ status: number, location?: string, body?: { bytes: Uint8Array, contentType: string } }>}
   */
  function requestOnce(url, signal) {
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
        headers: { 'accept-encoding': 'identity', 'user-agent': 'mutp-proxy' },
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
        if (REDIRECT_STATUSES.has(status)) {
          res.resume();
          signal.removeEventListener('abort', onAbort);
          return resolve({ status, location: res.headers.location });
        }
        if (status < 200 || status > 299) {
          res.resume();
          return fail(codedError('ERR_ORIGIN_STATUS', `origin answered ${status}`, { status }));
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > policy.maxObjectBytes) {
          return fail(codedError('ERR_ORIGIN_TOO_LARGE', `object is ${declared} B, cap is ${policy.maxObjectBytes} B`));
        }
        /** @type {Buffer[]} */
        const chunks = [];
        let total = 0;
        res.on('data', (chunk) => {
          total += chunk.length;
          if (total > policy.maxObjectBytes) {
            return fail(codedError('ERR_ORIGIN_TOO_LARGE', `object exceeds the cap of ${policy.maxObjectBytes} B`));
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          signal.removeEventListener('abort', onAbort);
          if (!res.complete) return reject(codedError('ERR_ORIGIN_UNREACHABLE', 'origin closed the response early'));
          const buf = Buffer.concat(chunks, total);
          resolve({
            status,
            body: {
              bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength),
              contentType: res.headers['content-type'] ?? 'application/octet-stream',
            },
          });
        });
        res.on('error', (err) => fail(codedError('ERR_ORIGIN_UNREACHABLE', `origin response failed: ${err.message}`)));
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
