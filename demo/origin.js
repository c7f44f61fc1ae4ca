// The demo origin: a small HTTP server on 127.0.0.1 serving deterministic test media with
// single-range support (GET/HEAD /media/demo-<n>{B,KB,MB}.bin), the demo video stream
// (/stream/) and, when given a plugin bundle, the page that plays it (/player/, player-site.js).
// Stands in for a video host.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { demoBytes, demoSize } from './media.js';
import { loadStream, playerFile, streamType, STREAM_PATH, PLAYER_PATH } from './player-site.js';

const CACHE_OBJECTS = 8; // keep a few generated objects; regeneration is cheap but not free
// The demo page's files are asked again on each load (they change when the code does) but answered
// 304 while unchanged: a browser then reuses the scripts it compiled (its code cache keeps only
// what its HTTP cache keeps), where `no-store` had it fetch and compile the plugins and hls.js anew.
const PAGE_CACHE_CONTROL = 'no-cache';

/**
 * Parse a single `Range: bytes=a-b | a- | -n` against a size.
 * @param {string | undefined} header
 * @param {number} size
 * @returns {{start: number, end: number} | null | 'unsatisfiable'}  end inclusive; null = no (usable) range
 */
export function parseRangeHeader(header, size) {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // multi-range or malformed: serve the whole object (RFC 9110 allows ignoring)
  let start;
  let end;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * @param {{host?: string, port?: number, player?: import('./player-site.js').PlayerSite | null}} [o]
 *   player: serve the demo page at /player/ with the plugins' bundle and this Origo
 * @returns {Promise<{url: string, port: number, close: () => Promise<void>}>}
 */
export async function startDemoOrigin({ host = '127.0.0.1', port = 0, player = null } = {}) {
  const stream = await loadStream();
  /** @type {Map<number, Uint8Array>} */
  const cache = new Map();
  const bytesFor = (size) => {
    let b = cache.get(size);
    if (!b) {
      b = demoBytes(size);
      cache.set(size, b);
      if (cache.size > CACHE_OBJECTS) cache.delete(cache.keys().next().value);
    }
    return b;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://demo');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/media/') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`MUTP demo origin. Objects: /media/demo-1B.bin, /media/demo-1MB.bin, /media/demo-5MB.bin (any /media/demo-<n>{B,KB,MB}.bin up to 64 MB). A video stream: ${STREAM_PATH}${player ? `; played through the fleet: ${PLAYER_PATH}` : ''}\n`);
      return;
    }
    if (player && url.pathname.startsWith(PLAYER_PATH)) {
      const file = await playerFile(url.pathname, player).catch(() => null);
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const etag = `"${createHash('sha256').update(file.body).digest('base64url').slice(0, 22)}"`;
      const headers = { 'content-type': file.type, 'cache-control': PAGE_CACHE_CONTROL, etag };
      if (req.headers['if-none-match'] === etag) res.writeHead(304, headers).end();
      else res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : file.body);
      return;
    }
    const name = url.pathname.startsWith('/stream/') ? url.pathname.slice('/stream/'.length) : null;
    const size = name !== null ? (stream.get(name)?.byteLength ?? null) : demoSize(url.pathname);
    if (size === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const body = name !== null ? /** @type {Uint8Array} */ (stream.get(name)) : bytesFor(size);
    const common = {
      'content-type': name !== null ? streamType(name) : 'application/octet-stream', 'accept-ranges': 'bytes', etag: `"demo-${name ?? size}"`, 'cache-control': 'public, max-age=3600',
      'access-control-allow-origin': '*', // a page elsewhere may play the stream directly (its fallback)
    };
    const r = parseRangeHeader(req.headers.range, size);
    if (r === 'unsatisfiable') {
      res.writeHead(416, { ...common, 'content-range': `bytes */${size}` }).end();
      return;
    }
    if (r) {
      res.writeHead(206, { ...common, 'content-range': `bytes ${r.start}-${r.end}/${size}`, 'content-length': String(r.end - r.start + 1) });
      res.end(req.method === 'HEAD' ? undefined : body.subarray(r.start, r.end + 1));
      return;
    }
    res.writeHead(200, { ...common, 'content-length': String(size) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(undefined));
  });
  const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://${host}:${addr.port}`,
    port: addr.port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
