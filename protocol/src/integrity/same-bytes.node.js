// Whether two byte views hold the same bytes, on Node: Buffer's native compare (memcmp) over
// the same memory, no copy. Browsers get the plain-JS same-bytes.js by the "#same-bytes" import condition.

/**
 * @param {Uint8Array} a @param {Uint8Array} b
 * @returns {boolean}
 */
export function sameBytes(a, b) {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}
