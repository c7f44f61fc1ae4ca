// Copies for writePayload(): carved out of shared slabs, like Node's Buffer pool. A fresh
// ArrayBuffer per packet cost ~1-1.5 µs in Node 20 (backing store, its GC tracking, zeroing),
// as much as encoding the packet at g=24, 1100 B; a slab spreads that over dozens of packets.

/** Bytes of one slab: 58 payloads of 1124 B (g=24 + 1100 B) share one allocation. */
const SLAB_BYTES = 64 * 1024;
/** Larger copies get their own buffer: a kept one must not pin a mostly dead slab, and their
 * allocation is small next to their encoding. */
const MAX_POOLED_BYTES = SLAB_BYTES / 8;
/** Copies start on 8 bytes, so the next copy's memmove starts aligned. */
const POOL_ALIGN_BYTES = 8;

let slab = new ArrayBuffer(0);
let used = 0;

/**
 * A copy of `src` that owns its bytes (nothing else writes them). Its `.buffer` may be shared
 * with other copies: read it through byteOffset/byteLength, and never transfer it.
 * @param {Uint8Array} src
 * @returns {Uint8Array}
 */
export function pooledCopy(src) {
  const n = src.length;
  if (n > MAX_POOLED_BYTES) return src.slice();
  if (used + n > slab.byteLength) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const out = new Uint8Array(slab, used, n);
  used += Math.ceil(n / POOL_ALIGN_BYTES) * POOL_ALIGN_BYTES;
  out.set(src);
  return out;
}
