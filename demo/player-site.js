// What the demo origin serves besides its test objects: the demo stream (/stream/, HLS in
// fragmented MP4, committed in demo/stream/) and, with a plugin bundle, a page that plays it with
// hls.js through the local fleet (/player/): the player plugin, no extension. The page shows the
// fleet's counters against the direct path live.
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STREAM_DIR = path.join(HERE, 'stream');
const PAGE_DIR = path.join(HERE, 'player');
const TYPES = {
  '.m3u8': 'application/vnd.apple.mpegurl', '.mp4': 'video/mp4', '.m4s': 'video/mp4',
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};
export const STREAM_PATH = '/stream/index.m3u8';
export const PLAYER_PATH = '/player/';

/** The demo stream's files, read once (about 1 MB). @returns {Promise<Map<string, Uint8Array>>} name → bytes */
export async function loadStream() {
  const files = new Map();
  for (const f of await readdir(STREAM_DIR)) files.set(f, await readFile(path.join(STREAM_DIR, f)));
  return files;
}

/**
 * @typedef {object} PlayerSite  what the demo page needs from `npm start`
 * @property {(rel: string) => Promise<{type: string, body: Uint8Array} | null>} pluginFile  a file of the plugins' browser bundle (@mutp/players/bundle's bundleFile)
 * @property {() => string | null} origo  the fleet's Origo, once it runs
 */

/**
 * A static file for /player/…, or null.
 * @param {string} pathname
 * @param {PlayerSite} player
 * @returns {Promise<{type: string, body: Uint8Array | string} | null>}
 */
export async function playerFile(pathname, player) {
  const rest = pathname.slice(PLAYER_PATH.length);
  if (rest === '' || rest === 'index.html') return { type: TYPES['.html'], body: await readFile(path.join(PAGE_DIR, 'index.html')) };
  if (rest === 'page.js' || rest === 'page.css') return { type: TYPES[path.extname(rest)], body: await readFile(path.join(PAGE_DIR, rest)) };
  if (rest === 'config.json') return { type: TYPES['.json'], body: JSON.stringify({ origo: player.origo(), stream: STREAM_PATH }) };
  if (rest === 'lib/hls.js') return { type: TYPES['.js'], body: await readFile(hlsBuild()) };
  if (rest.startsWith('plugin/')) return player.pluginFile(rest.slice('plugin/'.length));
  return null;
}

/** hls.js's browser build, from wherever npm put the package. */
const hlsBuild = () => createRequire(import.meta.url).resolve('hls.js/dist/hls.min.js');

/** @param {string} name */
export const streamType = (name) => TYPES[path.extname(name)] ?? 'application/octet-stream';
