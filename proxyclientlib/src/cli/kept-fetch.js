// The CLI's requests to Origo (the proxy list, tickets, the download's record), and to the
// proxies it connected to ahead, over node:http on kept connections. Node's `fetch` loads its
// implementation (undici) at its first call: 15-22 ms of a one-off's start before the lookup's
// first packet, where node:http is loaded already. And node:http takes a connection opened
// before the request (preconnect): a one-off opens TCP (and TLS) to the proxies it used last
// time while Origo's lookup is on the wire, so its first request to them waits no handshake.
// Every other request goes to `fetch`; the CLI loads it while the lookup is on the wire.
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';

/** Answers that have no body, whatever the server sends (fetch's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A hand-off not written within this long is given up, ms: a new connection's handshake and the write, on a slow path. */
export const HANDOFF_TIMEOUT_MS = 1000;

/**
 * @param {string} origo  Origo's base URL
 * @param {{fallback?: typeof fetch}} [o]  fallback: where every other request goes, and a request
 *   this cannot send as fetch would (a body or headers of another kind, a redirect)
 * @returns {{fetch: typeof fetch, preconnect: (url: string) => void, close: () => void,
 *   handOff: (url: string, body: string, o?: {contentType?: string, timeoutMs?: number}) => Promise<boolean>}}
 *   preconnect: open a connection to url's origin now; its requests then come here, the first on
 *   it. handOff: a POST whose answer nobody waits for. close: drop the kept connections and those never used
 */
export function createKeptFetch(origo, { fallback = (input, init) => globalThis.fetch(input, init) } = {}) {
  /** Origins whose requests go over node:http: Origo's, and every one preconnected. */
  const origins = new Set([new URL(origo).origin]);
  /** @type {Map<string, net.Socket>} host:port → a connection opened ahead, not used yet */
  const ahead = new Map();
  /** @type {Map<string, Promise<{lib: typeof http, agent: http.Agent}>>} per protocol ('http:', 'https:'), made once */
  const agents = new Map();
  /** @type {typeof import('node:tls') | null} loaded for an https origin only */
  let tls = null;

  /**
   * node:http or node:https, and its kept-alive agent, whose first connection to an origin is the
   * one opened ahead when there is one. One per protocol, however many requests ask at once.
   * @param {string} protocol
   */
  function clientOf(protocol) {
    let client = agents.get(protocol);
    if (!client) {
      client = makeClient(protocol);
      agents.set(protocol, client);
    }
    return client;
  }

  /** @param {string} protocol */
  async function makeClient(protocol) {
    const lib = /** @type {typeof http} */ (protocol === 'https:' ? await import('node:https') : http);
    const agent = new lib.Agent({ keepAlive: true }); // an idle kept socket does not hold the process
    const open = agent.createConnection.bind(agent);
    /** @type {any} */ (agent).createConnection = (/** @type {any} */ options, /** @type {any} */ cb) => {
      const key = `${options.host}:${options.port}`;
      const socket = ahead.get(key);
      ahead.delete(key);
      if (!socket || socket.destroyed) return open(options, cb);
      socket.ref(); // a request on it holds the process, as on any other
      return socket;
    };
    return { lib, agent };
  }

  /** @param {string} url */
  function preconnect(url) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    const key = `${host}:${port}`;
    if (ahead.has(key)) return;
    origins.add(u.origin);
    const open = (/** @type {typeof import('node:tls') | null} */ t) => {
      const socket = t ? t.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }) : net.connect({ host, port });
      socket.on('error', () => ahead.delete(key)); // a request opens its own; its error is the request's
      socket.unref(); // never used: it does not hold the process
      ahead.set(key, socket);
    };
    if (u.protocol === 'http:') return open(null);
    if (tls) return open(tls);
    import('node:tls').then((t) => { tls = t; open(t); }, () => {});
  }

  /** @param {string | URL | Request} input @param {RequestInit} [init] @returns {Promise<Response>} */
  async function keptFetch(input, init = {}) {
    const url = typeof input === 'string' || input instanceof URL ? new URL(input) : null;
    const headers = init.headers ?? {};
    const body = init.body ?? null;
    const plainHeaders = Object.getPrototypeOf(headers) === Object.prototype;
    if (!url || !origins.has(url.origin) || !plainHeaders || !(body === null || typeof body === 'string' || body instanceof Uint8Array)) return fallback(input, init);
    const { lib, agent } = await clientOf(url.protocol);
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const method = (init.method ?? 'GET').toUpperCase();
    return new Promise((resolve, reject) => {
      const req = lib.request(url, { method, headers: /** @type {Record<string, string>} */ (headers), agent, signal: init.signal ?? undefined }, (res) => {
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

  /**
   * POST `body` to `url` and resolve once node:http wrote the whole request to its connection: it is
   * then in the kernel's hands, and TCP delivers it even when this process exits next. Nothing
   * waits for the answer; it is read and dropped if it comes in time. False: the request failed,
   * or was not written within timeoutMs, or url is not an origin of these connections.
   * @param {string} url @param {string} body @param {{contentType?: string, timeoutMs?: number}} [o]
   * @returns {Promise<boolean>}
   */
  async function handOff(url, body, { contentType = 'application/json', timeoutMs = HANDOFF_TIMEOUT_MS } = {}) {
    const u = new URL(url);
    if (!origins.has(u.origin)) return false;
    const { lib, agent } = await clientOf(u.protocol);
    return new Promise((resolve) => {
      const req = lib.request(u, { method: 'POST', headers: { 'content-type': contentType }, agent }, (res) => res.resume());
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const settle = (/** @type {boolean} */ ok) => { clearTimeout(timer); resolve(ok); };
      req.on('error', () => settle(false));
      req.on('finish', () => settle(true)); // node:http's write callback: the last byte is in the socket
      req.end(Buffer.from(body));
    });
  }

  return {
    fetch: /** @type {typeof fetch} */ (keptFetch),
    preconnect,
    handOff,
    close: () => {
      for (const client of agents.values()) client.then(({ agent }) => agent.destroy(), () => {});
      for (const socket of ahead.values()) socket.destroy();
      ahead.clear();
    },
  };
}
