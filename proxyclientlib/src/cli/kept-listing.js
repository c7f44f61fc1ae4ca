// Origo's last answer to this user's `mutp get` (its proxies with their tickets, and the client
// id those are bound to), kept for the next get while the tickets are valid: that get goes to the
// proxies at once instead of waiting for Origo's lookup (two round trips on a new connection),
// and asks Origo again meanwhile for the get after it. A get takes the file (renames it away), so
// two gets at once never share a client id, against which a proxy counts a client's unopened
// peers. The file is the user's own (mode 0600): a ticket lets its holder use that proxy as that
// client until it expires. A file that is missing, old, for another Origo or another question, or
// malformed is ignored; a proxy that refuses a kept ticket gets a fresh one (proxy-access.js).
import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseProxyEntry } from '../origo-api.js';

export const KEPT_LISTING_FILE = 'listing.json';
/**
 * A listing is used this long after Origo gave it, ms. Its tickets live 120 s, and a proxy takes
 * one up to 30 s past its expiry (clock skew): at 90 s a ticket has 30 s left by Origo's clock,
 * and a proxy whose clock runs up to 60 s ahead still takes it. A ticket refused later (a long
 * download's late request) is renewed once (proxy-access.js). Gets a minute or so apart, as a
 * user runs them by hand, then wait for no lookup either.
 */
export const KEPT_LISTING_MAX_AGE_MS = 90_000;
const MAX_FILE_BYTES = 64 * 1024; // 8 entries with ~450-character tickets take ~6 KB: a larger file is not ours
const CLIENT_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/; // Origo's rule for the clientId it binds tickets to

/**
 * @typedef {{ n: number, lat: number | null, lon: number | null }} ListingQuery  what the get asked Origo for
 * @typedef {import('../origo-api.js').ProxyEntry} ProxyEntry
 */

/**
 * The kept listing for this Origo and question, taken: no other get will use it. Synchronous: it
 * decides the first packets.
 * @param {string | null} dir @param {string} origo @param {ListingQuery} query @param {number} now  ms since the epoch
 * @returns {{ clientId: string, proxies: ProxyEntry[] } | null}
 */
export function takeKeptListing(dir, origo, query, now) {
  if (dir === null) return null;
  const file = join(dir, KEPT_LISTING_FILE);
  const taken = `${file}.${process.pid}.taken`;
  let data;
  try {
    renameSync(file, taken);
  } catch {
    return null; // none, or another get took it
  }
  try {
    const text = readFileSync(taken, 'utf8');
    if (text.length > MAX_FILE_BYTES) return null;
    data = JSON.parse(text);
  } catch {
    return null;
  } finally {
    try { unlinkSync(taken); } catch { /* gone already */ }
  }
  if (!data || data.origo !== origo || typeof data.at !== 'number' || !(now - data.at >= 0 && now - data.at < KEPT_LISTING_MAX_AGE_MS)) return null;
  const q = data.query;
  if (!q || q.n !== query.n || q.lat !== query.lat || q.lon !== query.lon) return null;
  if (typeof data.clientId !== 'string' || !CLIENT_ID_PATTERN.test(data.clientId) || !Array.isArray(data.proxies) || data.proxies.length === 0) return null;
  const proxies = data.proxies.map(parseProxyEntry);
  if (proxies.some((p) => p === null)) return null;
  return { clientId: data.clientId, proxies: /** @type {ProxyEntry[]} */ (proxies) };
}

/**
 * Keep Origo's answer for the next get: written whole (mode 0600) and renamed. A failure is a
 * warning only: the next get asks Origo and waits.
 * @param {string | null} dir @param {string} origo @param {ListingQuery} query @param {string} clientId
 * @param {ProxyEntry[]} proxies @param {number} now @param {{warn: (...a: unknown[]) => void}} logger
 */
export async function keepListing(dir, origo, query, clientId, proxies, now, logger) {
  if (dir === null || proxies.length === 0) return;
  const file = join(dir, KEPT_LISTING_FILE);
  const part = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(part, JSON.stringify({ origo, at: now, query, clientId, proxies }), { mode: 0o600 });
    await rename(part, file);
  } catch (err) {
    logger.warn(`cannot keep Origo's proxy list in ${file}: ${/** @type {Error} */ (err).message}`);
  }
}
