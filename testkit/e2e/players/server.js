// A local site for real players from npm (hls.js, dash.js, Shaka): /play.html?player=…&src=…
// loads the library and plays the stream; /media/… serves the HLS and DASH files with Range
// support, recording every request (who asked: a proxy or the browser, which range).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { listenLocal } from '../helpers/listen.js';
import { MEDIA_CACHE_CONTROL } from '../helpers/media-caching.js';
import { buildTempBundle } from '@mutp/players/bundle';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.join(HERE, '..', '..', '..');
/** A devDependency of the extension workspace: in its node_modules, or hoisted to the root's. @param {string} name @param {string} file */
const fromPackage = (name, file) => [path.join(REPO, 'extension', 'node_modules', name), path.join(REPO, 'node_modules', name)]
  .map((d) => path.join(d, file)).find((f) => existsSync(f)) ?? path.join(REPO, 'node_modules', name, file);
// the libraries' browser builds
const LIBS = {
  'hls.js': fromPackage('hls.js', 'dist/hls.min.js'),
  'dash.js': fromPackage('dashjs', 'dist/modern/umd/dash.all.min.js'),
  'shaka.js': fromPackage('shaka-player', 'dist/shaka-player.compiled.js'),
};
const TYPES = { '.m3u8': 'application/vnd.apple.mpegurl', '.mpd': 'application/dash+xml' };
const LIB_CACHE_CONTROL = 'max-age=3600'; // the players' libraries and the plugins' bundle: a site's static scripts
const SEGMENT_TYPE = 'video/mp4'; // every other media file here is fragmented MP4

const PACE_CHUNK_BYTES = 16 * 1024; // a paced body goes out in pieces of this size, each at its time

/**
 * A link of `bytesPerS` that all bodies on it share: each piece waits for its turn, so two
 * bodies at once each get half (a per-body rate would let a fleet that fetches ahead beat it).
 * @param {() => number | null} rate  bytes/s now; null: unpaced
 */
function pacedLink(rate) {
  let freeAt = 0; // performance.now() when the link has sent all it took
  /** @param {import('node:http').ServerResponse} res @param {Uint8Array} body */
  return async function send(res, body) {
    for (let at = 0; at < body.length && !res.destroyed; at += PACE_CHUNK_BYTES) {
      const bytesPerS = rate();
      if (bytesPerS) {
        const piece = Math.min(PACE_CHUNK_BYTES, body.length - at);
        freeAt = Math.max(freeAt, performance.now()) + (piece / bytesPerS) * 1000;
        const wait = freeAt - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      res.write(body.subarray(at, at + PACE_CHUNK_BYTES));
    }
    res.end();
  };
}

/**
 * @param {{mediaDir: string, host?: string, plugins?: boolean}} o
 *   plugins: build the player plugins' browser bundle (@mutp/players/bundle) and serve it at /plugin/; play.html?plugin=1 plays through it
 */
export async function startPlayerSite({ mediaDir, host = '127.0.0.1', plugins = false }) {
  const bundle = plugins ? await buildTempBundle({ minify: true }) : null;
  /** @type {{path: string, range: string | null, fromBrowser: boolean, bytes: number}[]} */
  const hits = [];
  /** @type {Set<string>} the play pages whose pagehide handlers ran (play.js's beacon) */
  const pagehides = new Set();
  /** media bodies' rates (bytes/s; null: as fast as loopback) to the browser's own requests and to the proxies' */
  const rates = { browser: /** @type {number | null} */ (null), proxy: /** @type {number | null} */ (null) };
  const links = { browser: pacedLink(() => rates.browser), proxy: pacedLink(() => rates.proxy) };
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    try {
      if (u.pathname === '/play.html' || u.pathname === '/play.js') {
        // ?csp=no-workers: a site whose Content-Security-Policy forbids workers (the plugins' fleet then runs in the page)
        const csp = u.pathname === '/play.html' && u.searchParams.get('csp') === 'no-workers' ? { 'content-security-policy': "worker-src 'none'" } : {};
        res.writeHead(200, { 'content-type': u.pathname.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8', 'cache-control': 'no-store', ...csp });
        res.end(await readFile(path.join(HERE, u.pathname.slice(1))));
        return;
      }
      if (u.pathname === '/pagehide' && req.method === 'POST') {
        pagehides.add(String(u.searchParams.get('page')).slice(0, 64));
        res.writeHead(204).end();
        return;
      }
      if (u.pathname.startsWith('/lib/') && LIBS[u.pathname.slice(5)]) {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': LIB_CACHE_CONTROL });
        res.end(await readFile(LIBS[u.pathname.slice(5)]));
        return;
      }
      if (bundle && u.pathname.startsWith('/plugin/')) {
        const file = await bundle.file(u.pathname.slice('/plugin/'.length));
        if (!file) throw Object.assign(new Error('outside'), { status: 404 });
        // cached as the player's own script is (/lib/): a second load with the plugins then
        // compares like with like, each side with its scripts compiled from the cache
        res.writeHead(200, { 'content-type': file.type, 'cache-control': LIB_CACHE_CONTROL });
        res.end(file.body);
        return;
      }
      if (u.pathname.startsWith('/media/')) {
        const file = path.join(mediaDir, path.normalize(u.pathname.slice('/media/'.length)));
        if (!file.startsWith(mediaDir + path.sep)) throw Object.assign(new Error('outside'), { status: 404 });
        const size = (await stat(file)).size;
        const all = await readFile(file);
        const type = TYPES[path.extname(file)] ?? SEGMENT_TYPE;
        const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
        const fromBrowser = /Mozilla/.test(req.headers['user-agent'] ?? '');
        const headers = { 'content-type': type, 'accept-ranges': 'bytes', 'access-control-allow-origin': '*', 'cache-control': MEDIA_CACHE_CONTROL };
        if (m) {
          const start = Number(m[1]);
          const end = Math.min(m[2] === '' ? size - 1 : Number(m[2]), size - 1);
          if (start > end) {
            res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
            return;
          }
          hits.push({ path: u.pathname, range: `${start}-${end}`, fromBrowser, bytes: end - start + 1 });
          res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1 });
          await (fromBrowser ? links.browser : links.proxy)(res, all.subarray(start, end + 1));
          return;
        }
        hits.push({ path: u.pathname, range: null, fromBrowser, bytes: size });
        res.writeHead(200, { ...headers, 'content-length': size });
        if (type === SEGMENT_TYPE) await (fromBrowser ? links.browser : links.proxy)(res, all);
        else res.end(all);
        return;
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(/** @type {any} */ (err).status ?? (/** @type {any} */ (err).code === 'ENOENT' ? 404 : 500)).end();
    }
  });
  const listening = await listenLocal(server, host);
  return {
    ...listening, hits, pagehides,
    close: async () => {
      await listening.close();
      await bundle?.remove();
    },
    /** Pace media bodies to the browser (its direct path) and to the proxies (all the fleet's origin fetches), each a link of that rate. @param {{browser?: number | null, proxy?: number | null}} r  bytes/s, null: unpaced */
    setRates: (r) => Object.assign(rates, r),
  };
}
