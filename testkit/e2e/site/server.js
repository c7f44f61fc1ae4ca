// The local video site: an MSE player that fetches its media in ~1 MB `videoplayback?…&range=a-b`
// chunks (half with fetch, half with XHR), like YouTube's player in 2018. It records every
// media request (who asked: a proxy or the browser) so tests can tell fleet from direct.
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { listenLocal } from '../helpers/listen.js';
import { MEDIA_CACHE_CONTROL } from '../helpers/media-caching.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CHUNK_BYTES = 1024 * 1024; // 1 MiB chunks: the low end of YouTube's 2018 1–2 MB
const PLAIN_BYTES = 256 * 1024; // the other-site test's payload
// a strict page CSP: the extension's frame and its MessagePort must work under it
const PLAYER_CSP = "default-src 'self'; media-src 'self' blob:; frame-src 'none'; connect-src 'self'";

/**
 * @param {object} o
 * @param {Buffer} o.video
 * @param {string} o.mime
 * @param {string} [o.host]  listen address
 * @param {number} [o.port]
 * @param {{cert: Buffer, key: Buffer}} [o.tls]  serve HTTPS (the deployment tests)
 * @param {string} [o.name]  the host name in the site's URL (default: the address)
 */
export async function startVideoSite({ video, mime, host = '127.0.0.1', port: listenPort = 0, tls, name = host }) {
  const files = {
    '/': ['index.html', 'text/html; charset=utf-8'],
    '/player.js': ['player.js', 'text/javascript; charset=utf-8'],
    '/plain.html': ['plain.html', 'text/html; charset=utf-8'],
  };
  /** @type {{path: string, range: string | null, fromBrowser: boolean, bytes: number}[]} */
  const mediaHits = [];
  const plain = Buffer.alloc(PLAIN_BYTES);
  for (let i = 0; i < plain.length; i++) plain[i] = (i * 31 + 7) & 0xff;

  /** @type {import('node:http').RequestListener} */
  const handler = async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const fromBrowser = /Mozilla/.test(req.headers['user-agent'] ?? '');
    if (u.pathname === '/videoplayback') {
      const m = /^(\d+)-(\d+)$/.exec(u.searchParams.get('range') ?? '');
      const start = m ? Number(m[1]) : 0;
      const end = m ? Math.min(Number(m[2]), video.length - 1) : video.length - 1;
      if (start > end) {
        res.writeHead(416).end();
        return;
      }
      const body = video.subarray(start, end + 1);
      mediaHits.push({ path: u.pathname + u.search, range: u.searchParams.get('range'), fromBrowser, bytes: body.length });
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length, 'access-control-allow-origin': '*', 'cache-control': MEDIA_CACHE_CONTROL });
      res.end(body);
      return;
    }
    if (u.pathname === '/api/video') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ size: video.length, mime, chunkBytes: CHUNK_BYTES }));
      return;
    }
    if (u.pathname === '/plain.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': plain.length, 'cache-control': MEDIA_CACHE_CONTROL });
      res.end(plain);
      return;
    }
    const f = files[u.pathname];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    const headers = { 'content-type': f[1], 'cache-control': 'no-store' };
    if (u.pathname === '/') headers['content-security-policy'] = PLAYER_CSP;
    res.writeHead(200, headers);
    res.end(await readFile(path.join(HERE, f[0])));
  };
  const server = tls ? createTlsServer(tls, handler) : createServer(handler);
  return { ...(await listenLocal(server, host, { port: listenPort, tls: Boolean(tls), name })), mediaHits, plain };
}
