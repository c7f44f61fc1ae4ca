// Whether two byte views hold the same bytes, in plain JavaScript (browsers; Node takes its native
// compare, same-bytes.node.js, by the "#same-bytes" import condition). The HTTP modes compare each
// further copy of a block with the one delivered, so this runs over every byte a proxy sends.
// Four bytes a step where both views share an alignment: a byte loop runs ~10× slower.

const WORD_BYTES = 4; // Uint32Array's element size: its views must start on a multiple of it

/**
 * @param {Uint8Array} a @param {Uint8Array} b
 * @returns {boolean}
 */
export function sameBytes(a, b) {
  const n = a.length;
  if (n !== b.length) return false;
  let i = 0;
  const shift = a.byteOffset % WORD_BYTES;
  if (shift === b.byteOffset % WORD_BYTES) {
    const head = Math.min(n, (WORD_BYTES - shift) % WORD_BYTES);
    for (; i < head; i++) if (a[i] !== b[i]) return false;
    const words = Math.floor((n - i) / WORD_BYTES);
    if (words > 0) { // a view shorter than its head is done: no aligned start to make a word view at
      const wa = new Uint32Array(a.buffer, a.byteOffset + i, words);
      const wb = new Uint32Array(b.buffer, b.byteOffset + i, words);
      for (let k = 0; k < words; k++) if (wa[k] !== wb[k]) return false;
      i += words * WORD_BYTES;
    }
  }
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
