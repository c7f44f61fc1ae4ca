// First-fit free-list allocator over one WebAssembly.Memory shared by every encoder/decoder
// of a module instance. Freed neighbours are merged so long runs of create/dispose do not
// fragment the heap.
import { ALIGN_BYTES, align } from './align.js';
import { rangeError } from './limits.js';

/** WebAssembly page size in bytes (fixed by the spec). */
const PAGE_BYTES = 65536;

export class Heap {
  /**
   * @param {WebAssembly.Memory} memory
   * @param {number} start first free byte (the module's __heap_base)
   * @param {number} maxBytes the module's declared maximum memory
   */
  constructor(memory, start, maxBytes) {
    this.memory = memory;
    this.maxBytes = maxBytes;
    const base = align(start);
    const end = memory.buffer.byteLength;
    /** Free blocks sorted by address. @type {{ptr: number, size: number}[]} */
    this.free = end > base ? [{ ptr: base, size: end - base }] : [];
    /** @type {Map<number, number>} allocated ptr → size */
    this.used = new Map();
    /** @type {Uint8Array} */
    this._view = new Uint8Array(memory.buffer);
  }

  /** The whole memory as bytes; a new view after growth. */
  view() {
    // Growth detaches the old buffer, so its views read length 0. Checking that instead of
    // `memory.buffer` (a call into the engine, ~50-100 ns) keeps this off the per-packet profile.
    if (this._view.length === 0) this._view = new Uint8Array(this.memory.buffer);
    return this._view;
  }

  /** Bytes currently handed out. */
  usedBytes() {
    let n = 0;
    for (const s of this.used.values()) n += s;
    return n;
  }

  /**
   * @param {number} bytes
   * @returns {number} pointer to a zero-filled block of at least `bytes` bytes
   */
  alloc(bytes) {
    const size = align(Math.max(bytes, ALIGN_BYTES));
    let i = this.free.findIndex((b) => b.size >= size);
    if (i < 0) i = this._grow(size);
    const block = this.free[i];
    const ptr = block.ptr;
    if (block.size === size) this.free.splice(i, 1);
    else { block.ptr += size; block.size -= size; }
    this.used.set(ptr, size);
    this.view().fill(0, ptr, ptr + size);
    return ptr;
  }

  /** @param {number} ptr */
  release(ptr) {
    const size = this.used.get(ptr);
    if (size === undefined) return;
    this.used.delete(ptr);
    // binary search for the insertion point
    let lo = 0;
    let hi = this.free.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.free[mid].ptr < ptr) lo = mid + 1; else hi = mid;
    }
    this.free.splice(lo, 0, { ptr, size });
    // merge with the following, then the preceding block
    const cur = this.free[lo];
    const next = this.free[lo + 1];
    if (next && cur.ptr + cur.size === next.ptr) { cur.size += next.size; this.free.splice(lo + 1, 1); }
    const prev = this.free[lo - 1];
    if (prev && prev.ptr + prev.size === cur.ptr) { prev.size += cur.size; this.free.splice(lo, 1); }
  }

  /**
   * Grows the memory so a block of `size` fits at the end; at least doubles to keep growth
   * (which invalidates every view) rare.
   * @param {number} size
   * @returns {number} index of the free block that now fits
   */
  _grow(size) {
    const end = this.memory.buffer.byteLength;
    const last = this.free[this.free.length - 1];
    const tailFree = last && last.ptr + last.size === end ? last.size : 0;
    const needPages = Math.ceil((size - tailFree) / PAGE_BYTES);
    const maxPages = Math.floor(this.maxBytes / PAGE_BYTES);
    const curPages = end / PAGE_BYTES;
    if (curPages + needPages > maxPages) {
      throw rangeError('ERR_RLNC_OUT_OF_MEMORY',
        `codec memory limit ${this.maxBytes} bytes reached (need ${size} more bytes)`);
    }
    const pages = Math.min(maxPages - curPages, Math.max(needPages, curPages));
    this.memory.grow(pages);
    const added = pages * PAGE_BYTES;
    if (tailFree > 0) last.size += added;
    else this.free.push({ ptr: end, size: added });
    return this.free.length - 1;
  }
}
