// The encoded digest list of each cached object (GET /fetch?…&digests=1), computed once per
// object copy: clients of every HTTP download ask for it. SHA-256 runs in WebCrypto, on worker
// threads, so hashing a large object never holds up the bodies this proxy is sending. Keyed by
// the object's bytes, so it lives exactly as long as the cache entry.
import { digestListAsync, encodeDigestList } from '@mutp/protocol';

/** @type {WeakMap<Uint8Array, Promise<Uint8Array>>} */
const lists = new WeakMap();
const sha256Async = (/** @type {Uint8Array} */ b) => globalThis.crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (b));

/**
 * @param {Uint8Array} bytes  a cached object's bytes (the same array for every hit)
 * @returns {Promise<Uint8Array>} the digest list on the wire (docs/protocol.md "Integrity in the HTTP modes")
 */
export function encodedDigestsOf(bytes) {
  let out = lists.get(bytes);
  if (!out) {
    out = digestListAsync(bytes, sha256Async).then(encodeDigestList);
    lists.set(bytes, out);
  }
  return out;
}
