// The proxies Origo listed to this user's last `mutp get`, in a small file of the user's cache
// directory: the next process opens connections to them while it asks Origo again (kept-fetch's
// preconnect), so a one-off's first request to a proxy waits no TCP handshake. Only URLs are
// kept here, for a day (the tickets of a young listing: kept-listing.js); a file that is missing,
// unreadable, stale or for another Origo is ignored.
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const KNOWN_PROXIES_FILE = 'proxies.json';
export const KNOWN_PROXIES_MAX_AGE_MS = 24 * 3600 * 1000; // a day: a fleet's addresses outlive that, a stale guess costs idle connections
export const MAX_PRECONNECTS = 8; // as many as a lookup lists (proxies and spares); more would only be idle connections
const MAX_FILE_BYTES = 16 * 1024; // far above 8 URLs: a larger file is not ours
const MAX_URL_CHARS = 2048;

/**
 * The directory the CLI keeps its file in: $MUTP_CACHE_DIR, else $XDG_CACHE_HOME/mutp, else
 * ~/.cache/mutp; null (nothing kept) when none is set or MUTP_CACHE_DIR is empty.
 * @param {Record<string, string | undefined>} env
 * @returns {string | null}
 */
export function cacheDir(env) {
  if (env.MUTP_CACHE_DIR !== undefined) return env.MUTP_CACHE_DIR === '' ? null : env.MUTP_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'mutp');
  return env.HOME ? join(env.HOME, '.cache', 'mutp') : null;
}

/**
 * The proxy URLs kept for this Origo (at most MAX_PRECONNECTS), or none. Synchronous: it is read
 * before the lookup's first packet, and it is one small file.
 * @param {string | null} dir @param {string} origo @param {number} now  ms since the epoch
 * @returns {string[]}
 */
export function readKnownProxies(dir, origo, now) {
  if (dir === null) return [];
  let data;
  try {
    const text = readFileSync(join(dir, KNOWN_PROXIES_FILE), 'utf8');
    if (text.length > MAX_FILE_BYTES) return [];
    data = JSON.parse(text);
  } catch {
    return [];
  }
  if (!data || data.origo !== origo || typeof data.at !== 'number' || !(now - data.at >= 0 && now - data.at < KNOWN_PROXIES_MAX_AGE_MS) || !Array.isArray(data.urls)) return [];
  return data.urls.filter(isHttpUrl).slice(0, MAX_PRECONNECTS);
}

/**
 * Keep the URLs of the proxies Origo listed. Written whole and renamed, so that a reader never
 * sees half a file; a failure is a warning only, as the next download only starts slower.
 * @param {string | null} dir @param {string} origo @param {string[]} urls @param {number} now
 * @param {{warn: (...a: unknown[]) => void}} logger
 */
export async function rememberProxies(dir, origo, urls, now, logger) {
  if (dir === null) return;
  const kept = [...new Set(urls.filter(isHttpUrl))].slice(0, MAX_PRECONNECTS);
  const file = join(dir, KNOWN_PROXIES_FILE);
  const part = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(part, JSON.stringify({ origo, at: now, urls: kept }));
    await rename(part, file);
  } catch (err) {
    logger.warn(`cannot keep the proxies' addresses in ${file}: ${/** @type {Error} */ (err).message}`);
  }
}

/** @param {unknown} url */
function isHttpUrl(url) {
  if (typeof url !== 'string' || url.length > MAX_URL_CHARS || !URL.canParse(url)) return false;
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:';
}
