// Datagram buffers for one simulated download: views into 64 KiB slabs. A fresh Uint8Array per
// packet costs a backing-store allocation and its collection, and a fresh slab costs page
// faults on first touch: together ~10% of a run. Slabs therefore go back to a shared pool when
// the run is over (release()), and the next run writes over them: no datagram outlives its run
// (the sender, the SCTP model and the client that hold them are dropped with it). A view's old
// bytes do not matter: nextDatagram() writes the header and the payload, except that the rank
// codec leaves the payload bytes after its source id as they were (nothing reads them).

/** Bytes per slab: ~56 datagrams of ≤ 1200 bytes. */
const SLAB_BYTES = 64 * 1024;
/** Slabs kept for the next run (4 MiB): a 1.5 MB download uses ~25. */
const POOL_MAX_SLABS = 64;

/** @type {ArrayBuffer[]} */
const pool = [];

/**
 * @returns {{ alloc: (n: number) => Uint8Array, release: () => void }} alloc gives a view of n bytes
 *   (its contents are left over from an earlier run); release() hands this run's slabs back
 */
export function createSlabAllocator() {
  /** @type {ArrayBuffer[]} */
  const mine = [];
  let slab = new ArrayBuffer(0);
  let used = 0;
  return {
    alloc(n) {
      if (used + n > slab.byteLength) {
        slab = n <= SLAB_BYTES ? pool.pop() ?? new ArrayBuffer(SLAB_BYTES) : new ArrayBuffer(n);
        if (slab.byteLength === SLAB_BYTES) mine.push(slab);
        used = 0;
      }
      const view = new Uint8Array(slab, used, n);
      used += n;
      return view;
    },
    release() {
      while (mine.length > 0 && pool.length < POOL_MAX_SLABS) pool.push(/** @type {ArrayBuffer} */ (mine.pop()));
      mine.length = 0;
      slab = new ArrayBuffer(0);
      used = 0;
    },
  };
}
