// A tiny origin server on 127.0.0.1 for proxy tests (tests may only target loopback).
import http from 'node:http';
import { once } from 'node:events';

/**
 * @param {(req: http.IncomingMessage, res: http.ServerResponse) => void} handler
 * @returns {Promise<{ port: number, url: string, hits: () => number, close: () => Promise<void> }>}
 */
export async function startOrigin(handler) {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Deterministic test bytes (not all-equal, so an offset error changes the hash). @param {number} n */
export function testBytes(n) {
  const out = Buffer.alloc(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Collects log lines so tests can assert what was logged. */
export function captureLogger() {
  /** @type {{ level: string, msg: string, fields?: object }[]} */
  const lines = [];
  const at = (/** @type {string} */ level) => (/** @type {string} */ msg, /** @type {object} */ fields) => lines.push({ level, msg, fields });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

/**
 * Answer with `body` (its length said) in pieces, one every `everyMs`: an origin still sending.
 * @param {http.ServerResponse} res @param {Uint8Array} body
 * @param {{ pieceBytes: number, everyMs: number, diesAt?: number, onEnd?: () => void }} o
 *   diesAt: the connection breaks once this many bytes went out; onEnd: after the last byte was written
 */
export function paceBody(res, body, { pieceBytes, everyMs, diesAt = Infinity, onEnd = () => {} }) {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length });
  let at = 0;
  const next = () => {
    if (at >= diesAt) return res.destroy();
    res.write(body.subarray(at, at + pieceBytes));
    at += pieceBytes;
    if (at < body.length) setTimeout(next, everyMs);
    else {
      onEnd();
      res.end();
    }
  };
  next();
}
