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
