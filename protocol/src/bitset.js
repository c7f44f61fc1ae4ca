// A bitset over packet indices with the range queries the uncoded sender needs: lowest,
// highest, count and r-th member inside the window. Each query touches w/32 words, not w items.

/** Number of set bits in a 32-bit word. @param {number} v */
function popcount(v) {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Mask of the bits of word `w` that fall in [lo, hi). @param {number} w @param {number} lo @param {number} hi */
function maskFor(w, lo, hi) {
  const start = w * 32;
  let m = 0xffffffff;
  if (lo > start) m &= 0xffffffff << (lo - start);
  if (hi < start + 32) m &= (hi - start) <= 0 ? 0 : 0xffffffff >>> (32 - (hi - start));
  return m >>> 0;
}

export class Bitset {
  /** @param {number} size */
  constructor(size) {
    this.words = new Uint32Array(Math.max(1, Math.ceil(size / 32)));
  }

  /** @param {number} i */
  has(i) { return (this.words[i >>> 5] & (1 << (i & 31))) !== 0; }
  /** @param {number} i */
  add(i) { this.words[i >>> 5] |= 1 << (i & 31); }
  /** @param {number} i */
  delete(i) { this.words[i >>> 5] &= ~(1 << (i & 31)); }

  /** Lowest member in [lo, hi), or -1. @param {number} lo @param {number} hi */
  lowestIn(lo, hi) {
    if (hi <= lo) return -1;
    for (let w = lo >>> 5, end = (hi - 1) >>> 5; w <= end; w++) {
      const v = (this.words[w] & maskFor(w, lo, hi)) >>> 0;
      if (v) return w * 32 + (31 - Math.clz32(v & -v));
    }
    return -1;
  }

  /** Highest member in [lo, hi), or -1. @param {number} lo @param {number} hi */
  highestIn(lo, hi) {
    if (hi <= lo) return -1;
    for (let w = (hi - 1) >>> 5, end = lo >>> 5; w >= end; w--) {
      const v = (this.words[w] & maskFor(w, lo, hi)) >>> 0;
      if (v) return w * 32 + (31 - Math.clz32(v));
    }
    return -1;
  }

  /** Members in [lo, hi). @param {number} lo @param {number} hi */
  countIn(lo, hi) {
    let n = 0;
    if (hi <= lo) return 0;
    for (let w = lo >>> 5, end = (hi - 1) >>> 5; w <= end; w++) n += popcount((this.words[w] & maskFor(w, lo, hi)) >>> 0);
    return n;
  }

  /** The r-th (0-based) member in [lo, hi), or -1. @param {number} lo @param {number} hi @param {number} r */
  selectIn(lo, hi, r) {
    if (hi <= lo) return -1;
    for (let w = lo >>> 5, end = (hi - 1) >>> 5; w <= end; w++) {
      let v = (this.words[w] & maskFor(w, lo, hi)) >>> 0;
      const c = popcount(v);
      if (r >= c) { r -= c; continue; }
      while (r-- > 0) v &= v - 1; // drop the lowest set bits
      return w * 32 + (31 - Math.clz32(v & -v));
    }
    return -1;
  }
}
