// Test fixtures for MUTP over real WebRTC on loopback: proxies made of a bare express app and
// fake deps (in-memory objects, recorded logs) around the real mountRtc.
import http from 'node:http';
import { createHash } from 'node:crypto';
import express from 'express';
import { mountRtc } from '@mutp/proxy/rtc';
import { codedError } from '@mutp/common/errors';

/** Tests only ever target loopback. */
export const LOOPBACK_RTC = Object.freeze({ bindAddress: '127.0.0.1' });

/** @param {Uint8Array} b */
export const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/** Deterministic pseudo-random bytes (a test object that catches misplaced packets). @param {number} n @param {number} seed */
export function testBytes(n, seed = 1) {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * objects.get over a Map url → bytes; unknown URLs and `refused` ones reject with their codes.
 * @param {Map<string, Uint8Array>} map
 * @param {Record<string, string>} [refused]  url → error code
 */
export function memoryObjects(map, refused = {}) {
  return {
    gets: 0,
    async get(/** @type {string} */ url) {
      this.gets++;
      if (refused[url]) throw codedError(refused[url], `refused: ${url}`);
      const bytes = map.get(url);
      if (!bytes) throw codedError('ERR_ORIGIN_STATUS', `origin said 404 for ${url}`);
      return { bytes, contentType: 'application/octet-stream', serverFetchMs: 3, fromCache: true };
    },
  };
}

/**
 * @param {{ id: string, objects: any, protocol?: any, config?: object, pathCache?: any }} o  pathCache: the proxy's paths to its clients (mountRtc's own when omitted)
 * @returns the proxy; `hints`: the next-object hints its sessions passed on, in order
 */
export async function startTestProxy({ id, objects, protocol, config = {}, pathCache }) {
  const app = express();
  /** @type {any[]} */
  const records = [];
  /** @type {string[]} */
  const warnings = [];
  /** @type {string[]} */
  const hints = [];
  const stats = { activeSessions: 0, bytesSent: 0 };
  const logger = { info() {}, warn: (/** @type {string} */ m) => warnings.push(m), error: (/** @type {string} */ m) => warnings.push(m) };
  const rtc = mountRtc(app, {
    objects, logs: { record: (r) => records.push(r) }, stats, logger, protocol, pathCache, hintNext: (/** @type {string} */ u) => hints.push(u),
    config: { id, host: '127.0.0.1', ...config },
  });
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  let killed = false;
  return {
    id, url, records, warnings, hints, stats, rtc,
    ref: { id, url },
    /** Close every peer connection and the HTTP server, like a proxy process going away. */
    kill() {
      if (killed) return;
      killed = true;
      rtc.close();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Poll a condition (no timing assertion: mocha's timeout is the limit). @param {() => boolean} cond */
export async function waitFor(cond) {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}
