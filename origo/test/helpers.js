import { randomUUID } from 'node:crypto';
import { io as connectSocket } from 'socket.io-client';
import { proxyToken, startOrigo } from '../index.js';

export const SECRET = 'origo-test-secret-0123456789';

/** A logger that keeps what it is told, for asserting on warnings. */
export function captureLogger() {
  /** @type {{ level: string, msg: string, fields: any }[]} */
  const lines = [];
  const at = (/** @type {string} */ level) => (/** @type {string} */ msg, /** @type {any} */ fields) => lines.push({ level, msg, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Proxies in these tests advertise 127.0.0.1 URLs, so private publicUrls are allowed unless a test says otherwise. @param {Partial<import('../src/server.js').OrigoConfig>} [opts] */
export async function startTestOrigo(opts = {}) {
  const logger = captureLogger();
  const origo = await startOrigo({ proxySecret: SECRET, port: 0, host: '127.0.0.1', db: ':memory:', logger, allowPrivateProxyUrls: true, ...opts });
  return { ...origo, logger };
}

/**
 * Connects to `/proxy`; resolves with the socket, or rejects with the connect_error.
 * @param {string} url @param {Record<string, unknown>} auth
 * @returns {Promise<import('socket.io-client').Socket>}
 */
export function connectProxy(url, auth) {
  const socket = connectSocket(`${url}/proxy`, { auth, reconnection: false, transports: ['websocket'], forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** @param {string} url @param {string} proxyId */
export const connectGoodProxy = (url, proxyId) => connectProxy(url, { proxyId, token: proxyToken(SECRET, proxyId) });

/** @param {string} proxyId @param {object} [over] */
export function proxyStatus(proxyId, over = {}) {
  return { proxyId, publicUrl: `http://127.0.0.1:${9000 + proxyId.length}/`, location: null, uploadRateBps: 917504, activeSessions: 0, bytesSent: 0, cpu: 0.1, ...over };
}

/** Emits with an ack and resolves with the reply. @param {import('socket.io-client').Socket} socket @param {string} event @param {unknown} payload */
export function emitWithAck(socket, event, payload) {
  return new Promise((resolve) => socket.emit(event, payload, resolve));
}

/** Polls until `check` returns a truthy value; mocha's timeout bounds it. @template T @param {() => Promise<T>} check @returns {Promise<T>} */
export async function eventually(check) {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** @param {string} url @param {string} [query] */
export async function getProxies(url, query = '') {
  const res = await fetch(`${url}/api/proxies${query}`);
  return { status: res.status, body: await res.json() };
}

/** @param {string} url @param {unknown} body */
export async function postLogs(url, body) {
  const res = await fetch(`${url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** A valid client record. @param {object} [over] */
export function clientRecord(over = {}) {
  return {
    id: randomUUID(),
    clientId: 'client-1',
    startedAt: '2025-03-01T12:00:00.000Z',
    mode: 'coded',
    n: 2,
    proxyIds: ['p1', 'p2'],
    url: 'http://127.0.0.1:1/video.mp4',
    objectBytes: 1000,
    params: { window: 64, generationSize: 32, feedbackEvery: 8, payloadSize: 1000, surplus: 0.05 },
    grossBytes: 1250,
    netBytes: 1000,
    durationMs: 500,
    firstPacketMs: 12.5,
    connectMs: 4.5,
    serverFetchMs: 40,
    requestSteps: null,
    packets: 2,
    duplicates: 1,
    lossEstimate: 0,
    perProxy: [
      { proxyId: 'p1', bytes: 750, packets: 1, duplicates: 0, error: null },
      { proxyId: 'p2', bytes: 500, packets: 1, duplicates: 1, error: { code: 'ERR_PEER_GONE', message: 'closed' } },
    ],
    packetLog: [[10.5, 0, 1, 1], [12, 1, 0, 1]],
    feedbackLog: [11],
    timeBreakdown: null,
    verified: true,
    error: null,
    ...over,
  };
}

/** A valid proxy record. @param {string} proxyId @param {object} [over] */
export function proxyRecord(proxyId, over = {}) {
  return {
    id: randomUUID(),
    proxyId,
    downloadId: 'dl-1',
    startedAt: '2025-03-01T12:00:00.000Z',
    mode: 'uncoded',
    url: 'http://127.0.0.1:1/video.mp4',
    objectBytes: 1000,
    sourceIndex: 0,
    n: 2,
    params: { window: 64, generationSize: null, feedbackEvery: 8, payloadSize: 1000, surplus: null },
    packetsSent: 3,
    bytesSent: 3000,
    durationMs: 20,
    serverFetchMs: 4,
    fromCache: false,
    firstSendMs: null,
    inflightHeldMs: null,
    error: null,
    ...over,
  };
}

/** Method names of the Store interface. */
export const STORE_METHODS = ['insertClientRecords', 'insertProxyRecords', 'insertProxyStatus', 'listClientRecords', 'listProxyRecords', 'counts', 'quantilesByGroup', 'close'];

/** A store that forwards every method to `real`; a test then replaces one. @param {any} real @returns {any} */
export function forwardingStore(real) {
  return Object.fromEntries(STORE_METHODS.map((m) => [m, (/** @type {any[]} */ ...a) => real[m](...a)]));
}
