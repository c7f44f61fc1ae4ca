// Hashes kept per cached object copy: the HTTP modes' digest lists (GET /fetch?…&digests=1, and
// the X-MUTP-Digests header of a body response) and MUTP's checksum tables. Clients of every
// download ask for them, so each is computed once per copy. Keyed by the copy's bytes, so they
// live exactly as long as the cache entry.
import { encodeDigestList, spanDigestList } from '@mutp/protocol';

/**
 * Hashes kept per object copy: one copy may be asked for under a few ranges and layouts (a whole
 * list, span lists of a few ranges, MUTP tables per range, mode, payload and generation size).
 */
const MAX_HASHES_PER_COPY = 8;
/** @type {WeakMap<Uint8Array, Map<string, Uint8Array>>} */
const kept = new WeakMap();

/**
 * A hash result of a cached copy, computed once per copy and key.
 * @param {Uint8Array} bytes  a cached copy's bytes (the same array for every hit)
 * @param {string} key  what else the result depends on (range, layout)
 * @param {() => Uint8Array} compute  hashes on a miss
 * @returns {Uint8Array}
 */
function keptFor(bytes, key, compute) {
  let perCopy = kept.get(bytes);
  if (!perCopy) {
    perCopy = new Map();
    kept.set(bytes, perCopy);
  }
  let out = perCopy.get(key);
  if (!out) {
    out = compute();
    if (perCopy.size >= MAX_HASHES_PER_COPY) perCopy.delete(/** @type {string} */ (perCopy.keys().next().value));
    perCopy.set(key, out);
  }
  return out;
}

/**
 * The encoded digest list of a span of blocks of a cached copy (docs/protocol.md "Integrity in the
 * HTTP modes"). node:crypto hashes synchronously, about 1 ms per MiB (measured 0.8–1.7 ms, 64 KiB
 * blocks): less than handing each block to WebCrypto's worker threads, whose answers came ~25 ms
 * after the bodies with four proxies sending 1 MiB each on a loaded 2-core box.
 * @param {{ bytes: Uint8Array, at: number, total: number }} copy  the copy's bytes, their object
 *   offset, and the object's size; the bytes hold every block of the span
 * @param {import('@mutp/protocol').BlockSpan} span
 * @returns {Uint8Array}
 */
export function encodedDigestsOf(copy, span) {
  return keptFor(copy.bytes, `digests ${span.first}-${span.end}`, () => encodeDigestList(spanDigestList(copy.bytes, copy.at, copy.total, span)));
}

/**
 * The MUTP checksum table of a served slice of a cached copy, hashed once per copy, range and
 * layout (about 1.5 ms for 1.5 MiB: paid by every session otherwise, and four proxies on one
 * loaded host paid it together at each download's start).
 * @param {Uint8Array} bytes  a cached copy's bytes (the same array for every hit)
 * @param {string} key  what else the table depends on: range and layout
 * @param {() => Uint8Array} compute  hashes the table on a miss
 * @returns {Uint8Array}
 */
export function checksumTableOf(bytes, key, compute) {
  return keptFor(bytes, `table ${key}`, compute);
}
