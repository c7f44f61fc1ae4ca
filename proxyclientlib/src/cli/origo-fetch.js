// The CLI's requests to Origo (the proxy list, tickets, the download's record) over node:http,
// on one kept connection. Node's `fetch` loads its implementation (undici) at its first call:
// 15-22 ms of a one-off's start before the lookup's first packet, where node:http is loaded
// already. Every other request (the proxies) goes to `fetch`; the CLI loads it while the lookup
// is on the wire.
import http from 'node:http';
import { Readable } from 'node:stream';

/** Answers that have no body, whatever the server sends (fetch's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * @param {string} origo  Origo's base URL
 * @param {{fallback?: typeof fetch}} [o]  fallback: where every other request goes, and a request
 *   this cannot send as fetch would (a body or headers of another kind, a redirect)
 * @returns {{fetch: typeof fetch, close: () => void}}  close: drop the kept connection
 */
export function createOrigoFetch(origo, { fallback = (input, init) => globalThis.fetch(input, init) } = {}) {
  const origin = new URL(origo).origin;
  /** @type {http.Agent | null} */
  let agent = null;
  /** @type {typeof http | null} node:https, loaded for an https Origo only */
  let lib = null;

  /** @param {string | URL | Request} input @param {RequestInit} [init] @returns {Promise<Response>} */
  async function origoFetch(input, init = {}) {
    const url = typeof input === 'string' || input instanceof URL ? new URL(input) : null;
    const headers = init.headers ?? {};
    const body = init.body ?? null;
    const plainHeaders = Object.getPrototypeOf(headers) === Object.prototype;
    if (!url || url.origin !== origin || !plainHeaders || !(body === null || typeof body === 'string' || body instanceof Uint8Array)) return fallback(input, init);
    lib ??= url.protocol === 'https:' ? /** @type {typeof http} */ (/** @type {unknown} */ (await import('node:https'))) : http;
    agent ??= new lib.Agent({ keepAlive: true }); // an idle kept socket does not hold the process
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const method = (init.method ?? 'GET').toUpperCase();
    return new Promise((resolve, reject) => {
      const req = /** @type {typeof http} */ (lib).request(url, { method, headers: /** @type {Record<string, string>} */ (headers), agent: /** @type {http.Agent} */ (agent), signal: init.signal ?? undefined }, (res) => {
        const status = /** @type {number} */ (res.statusCode);
        if (status >= 300 && status < 400 && res.headers.location && init.redirect !== 'manual') {
          res.resume();
          resolve(fallback(input, init)); // fetch follows it
          return;
        }
        /** @type {[string, string][]} */
        const pairs = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        const noBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
        if (noBody) res.resume();
        const stream = noBody ? null : /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(res));
        resolve(new Response(stream, { status, statusText: res.statusMessage, headers: pairs }));
      });
      // as fetch rejects: the signal's reason, or a TypeError whose cause names the network error
      req.on('error', (err) => reject(init.signal?.aborted ? init.signal.reason : new TypeError('fetch failed', { cause: err })));
      req.end(bytes ?? undefined); // one piece: node:http sends its Content-Length
    });
  }

  return {
    fetch: /** @type {typeof fetch} */ (origoFetch),
    close: () => agent?.destroy(),
  };
}
