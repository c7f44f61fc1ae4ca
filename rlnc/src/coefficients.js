// Seeded coefficient generator: xoshiro128** (output is non-linear over GF(2) because of its
// multiplications). A generator linear over GF(2) (xorshift) capped the rank at 32 for g=64
// (field notes), so a plain xorshift must not be used here.
// csrc/rlnc.c (draw_coefficients) is the same generator for the WASM builds; an encoder keeps
// the state in codec memory (STATE_BYTES at a 4-byte aligned pointer) so either can draw.

/** fmix32 constants from MurmurHash3: a bijection, so distinct seeds give distinct states (s0 from the low word, then s1 from the high word). */
const FMIX_MUL_1 = 0x85ebca6b;
const FMIX_MUL_2 = 0xc2b2ae35;
/** Distinct salts per state word; SALT_0 !== -SALT_2 so the state is never all zero. */
const SALT_0 = 0x9e3779b9;
const SALT_1 = 0x7f4a7c15;
const SALT_2 = 0x2545f491;
const SALT_3 = 0x6c8e9cf5;
const TWO_POW_32 = 2 ** 32;
/** Bytes of generator state in codec memory: s0..s3 as little-endian u32 (the C side reads u32[4]). */
export const STATE_BYTES = 16;

/** @param {Uint8Array} mem @param {number} p @returns {number} */
function readU32(mem, p) {
  return (mem[p] | (mem[p + 1] << 8) | (mem[p + 2] << 16) | (mem[p + 3] << 24)) >>> 0;
}

/** @param {Uint8Array} mem @param {number} p @param {number} v */
function writeU32(mem, p, v) {
  mem[p] = v;
  mem[p + 1] = v >>> 8;
  mem[p + 2] = v >>> 16;
  mem[p + 3] = v >>> 24;
}

/** @param {number} x */
function fmix32(x) {
  x ^= x >>> 16;
  x = Math.imul(x, FMIX_MUL_1);
  x ^= x >>> 13;
  x = Math.imul(x, FMIX_MUL_2);
  x ^= x >>> 16;
  return x >>> 0;
}

/** @param {number} x @param {number} k */
function rotl(x, k) {
  return (x << k) | (x >>> (32 - k));
}

export class CoefficientGenerator {
  /** @param {number} seed non-negative safe integer */
  constructor(seed) {
    const lo = seed >>> 0;
    const hi = Math.floor(seed / TWO_POW_32) >>> 0;
    this.s0 = fmix32(lo ^ SALT_0);
    // the first output is drawn from s1 alone: it must depend on the low word too, or every u32
    // seed (all the protocol's) starts with the same 4 coefficients, and at g <= 4 each source's
    // first packet of a generation is the same packet (non-innovative from all sources but one)
    this.s1 = fmix32(hi ^ SALT_1 ^ this.s0);
    this.s2 = fmix32((lo + SALT_2) >>> 0);
    this.s3 = fmix32((hi + SALT_3) >>> 0);
  }

  /**
   * A generator continuing from the state stored at `ptr` by save().
   * @param {Uint8Array} mem @param {number} ptr
   */
  static load(mem, ptr) {
    const gen = new CoefficientGenerator(0);
    gen.s0 = readU32(mem, ptr);
    gen.s1 = readU32(mem, ptr + 4);
    gen.s2 = readU32(mem, ptr + 8);
    gen.s3 = readU32(mem, ptr + 12);
    return gen;
  }

  /** Stores the state (STATE_BYTES) at `ptr`. @param {Uint8Array} mem @param {number} ptr */
  save(mem, ptr) {
    writeU32(mem, ptr, this.s0);
    writeU32(mem, ptr + 4, this.s1);
    writeU32(mem, ptr + 8, this.s2);
    writeU32(mem, ptr + 12, this.s3);
  }

  /** @returns {number} the next 32-bit output (unsigned) */
  next() {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * Fills `out[offset .. offset+count)` with uniform bytes, redrawing an all-zero vector
   * (it can never be innovative; this only matters at small g, e.g. 1/256 of packets at g=1).
   * @param {Uint8Array} out
   * @param {number} offset
   * @param {number} count
   */
  fill(out, offset, count) {
    // The state lives in locals for the whole vector: this halved the cost per packet (g=24:
    // ~100 -> ~50 ns) against calling next() per word. Same stream as next().
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    for (;;) {
      let any = 0;
      for (let i = 0; i < count; i += 4) {
        const w = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
        if (i + 4 <= count) {
          // byte stores keep the low 8 bits: little-endian order, as below
          out[offset + i] = w;
          out[offset + i + 1] = w >>> 8;
          out[offset + i + 2] = w >>> 16;
          out[offset + i + 3] = w >>> 24;
          any |= w;
        } else {
          let v = w;
          for (let j = i; j < count; j++) {
            const b = v & 0xff;
            out[offset + j] = b;
            any |= b;
            v >>>= 8;
          }
        }
      }
      if (any !== 0) break;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }
}

/**
 * @param {any} seed
 * @returns {number}
 */
export function normalizeSeed(seed) {
  if (seed === undefined) {
    const w = new Uint32Array(2);
    globalThis.crypto.getRandomValues(w);
    return (w[0] & 0x1fffff) * TWO_POW_32 + w[1];
  }
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0) {
    const err = new TypeError(`seed must be a non-negative safe integer, got ${String(seed)}`);
    /** @type {any} */ (err).code = 'ERR_RLNC_BAD_SEED';
    throw err;
  }
  return seed;
}
