// Datagram buffers for one simulated download: views into large zeroed slabs. A fresh
// Uint8Array per packet costs a backing-store allocation and its later collection (about half
// of the sender's time per packet); a view costs an object. Slabs are never reused: the client
// may keep a datagram's bytes (the receiver keeps useful coded payloads until their generation
// verifies), and a slab lives until the last view into it is gone.

/** Bytes per slab: ~56 datagrams of ≤ 1200 bytes. */
const SLAB_BYTES = 64 * 1024;

/** @returns {(n: number) => Uint8Array} gives a zeroed view of n bytes (n ≤ SLAB_BYTES) */
export function createSlabAllocator() {
  let slab = new ArrayBuffer(0);
  let used = 0;
  return (n) => {
    if (used + n > slab.byteLength) {
      slab = new ArrayBuffer(Math.max(SLAB_BYTES, n));
      used = 0;
    }
    const view = new Uint8Array(slab, used, n);
    used += n;
    return view;
  };
}
