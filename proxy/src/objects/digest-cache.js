// The encoded digest list of each cached object (GET /fetch?…&digests=1, and the X-MUTP-Digests
// header of a body response), computed once per
// object copy: clients of every HTTP download ask for it. Keyed by the object's bytes, so it
// lives exactly as long as the cache entry.
import { digestList, encodeDigestList } from '@mutp/protocol';

/** @type {WeakMap<Uint8Array, Uint8Array>} */
const lists = new WeakMap();

/**
 * node:crypto hashes synchronously, about 1 ms per MiB (measured 0.8–1.7 ms, 64 KiB blocks): less than
 * handing each block to WebCrypto's worker threads, whose answers came ~25 ms after the bodies with four
 * proxies sending 1 MiB each on a loaded 2-core box.
 * @param {Uint8Array} bytes  a cached object's bytes (the same array for every hit)
 * @returns {Uint8Array} the digest list on the wire (docs/protocol.md "Integrity in the HTTP modes")
 */
export function encodedDigestsOf(bytes) {
  let out = lists.get(bytes);
  if (!out) {
    out = encodeDigestList(digestList(bytes));
    lists.set(bytes, out);
  }
  return out;
}

/**
 * Checksum tables kept per object copy: a table depends on the served range and the layout (mode,
 * payload size, generation size), and one object may be asked for under a few of them.
 */
const MAX_TABLES_PER_OBJECT = 8;
/** @type {WeakMap<Uint8Array, Map<string, Uint8Array>>} */
const tables = new WeakMap();

/**
 * The MUTP checksum table of a served slice of a cached object, hashed once per object copy,
 * range and layout (about 1.5 ms for 1.5 MiB: paid by every session otherwise, and four proxies
 * on one loaded host paid it together at each download's start).
 * @param {Uint8Array} bytes  a cached object's bytes (the same array for every hit)
 * @param {string} key  what else the table depends on: range and layout
 * @param {() => Uint8Array} compute  hashes the table on a miss
 * @returns {Uint8Array}
 */
export function checksumTableOf(bytes, key, compute) {
  let perObject = tables.get(bytes);
  if (!perObject) {
    perObject = new Map();
    tables.set(bytes, perObject);
  }
  let table = perObject.get(key);
  if (!table) {
    table = compute();
    if (perObject.size >= MAX_TABLES_PER_OBJECT) perObject.delete(/** @type {string} */ (perObject.keys().next().value));
    perObject.set(key, table);
  }
  return table;
}
