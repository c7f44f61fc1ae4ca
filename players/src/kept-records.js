// The records Origo has not taken when a page is hidden or goes away, kept in the site's
// localStorage and sent by the next fleet the site makes for the same Origo. The extension keeps
// its records in extension storage; a page has only this. Each fleet writes under a key of its
// own, so tabs of one site never overwrite each other's; a fleet takes every key of its Origo
// when it starts. Origo stores a record once by id, so one sent twice is a counted duplicate.

const KEY_PREFIX = 'mutp-records ';
/** Characters one fleet keeps: localStorage holds ~5 M characters per site, shared with the site's own data. */
export const KEPT_MAX_CHARS = 1_000_000;
const RECORD_ID = /^[\w.:-]{1,200}$/; // what a record's id looks like; anything else in storage is not ours

/**
 * @typedef {{ getItem: (k: string) => string | null, setItem: (k: string, v: string) => void, removeItem: (k: string) => void,
 *   key: (i: number) => string | null, readonly length: number }} KeptStorage  the Web Storage API's part used here
 * @typedef {{ id: string } & Record<string, unknown>} KeptRecord
 */

/** The page's localStorage, or null where the page may not use it (sandboxed frames, storage off). @returns {KeptStorage | null} */
export function pageStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** @param {string} origo @param {string} fleetId */
const keyOf = (origo, fleetId) => `${KEY_PREFIX}${origo} ${fleetId}`;

/**
 * Replaces what this fleet keeps with `records` (newest kept first when they do not all fit).
 * @param {KeptStorage | null} storage @param {string} origo @param {string} fleetId @param {KeptRecord[]} records
 * @returns {{ kept: number, dropped: number, error: string | null }}
 */
export function keepRecords(storage, origo, fleetId, records) {
  if (!storage) return { kept: 0, dropped: records.length, error: records.length ? 'no localStorage' : null };
  const key = keyOf(origo, fleetId);
  try {
    if (records.length === 0) {
      storage.removeItem(key);
      return { kept: 0, dropped: 0, error: null };
    }
    const parts = [];
    let chars = 2; // the array's brackets
    for (let i = records.length - 1; i >= 0; i--) {
      const json = JSON.stringify(records[i]);
      if (chars + json.length + 1 > KEPT_MAX_CHARS) break;
      parts.unshift(json);
      chars += json.length + 1;
    }
    storage.setItem(key, `[${parts.join(',')}]`);
    return { kept: parts.length, dropped: records.length - parts.length, error: null };
  } catch (err) {
    return { kept: 0, dropped: records.length, error: /** @type {Error} */ (err)?.message ?? String(err) };
  }
}

/**
 * Takes (reads and removes) every record kept for `origo` by earlier fleets.
 * Entries that are not arrays of records with an id are dropped and counted.
 * @param {KeptStorage | null} storage @param {string} origo
 * @returns {{ records: KeptRecord[], malformed: number }}
 */
export function takeKeptRecords(storage, origo) {
  /** @type {KeptRecord[]} */
  const records = [];
  let malformed = 0;
  if (!storage) return { records, malformed };
  try {
    const prefix = `${KEY_PREFIX}${origo} `;
    const keys = [];
    for (let i = 0; i < storage.length; i++) {
      const k = storage.key(i);
      if (k !== null && k.startsWith(prefix)) keys.push(k);
    }
    for (const k of keys) {
      const raw = storage.getItem(k);
      storage.removeItem(k);
      let list;
      try {
        list = JSON.parse(raw ?? '');
      } catch {
        malformed++;
        continue;
      }
      if (!Array.isArray(list)) {
        malformed++;
        continue;
      }
      for (const r of list) {
        if (r && typeof r === 'object' && !Array.isArray(r) && typeof r.id === 'string' && RECORD_ID.test(r.id)) records.push(r);
        else malformed++;
      }
    }
  } catch {
    // storage refused mid-way: what was read is sent; the rest stays for a later fleet
  }
  return { records, malformed };
}
