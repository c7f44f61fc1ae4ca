// GF(2^8) with the primitive polynomial x^8+x^4+x^3+x^2+1 (0x11D), Kodo's "binary8".

/** Reduction polynomial including the x^8 term. */
export const POLYNOMIAL = 0x11d;

/** EXP[i] = 2^i, doubled in length so EXP[LOG[a] + LOG[b]] needs no modulo. */
const EXP = new Uint8Array(512);
/** LOG[a] for a != 0; LOG[0] is unused. */
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= POLYNOMIAL;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}

/** MUL[a * 256 + b] = a·b: one 64 KiB table turns a multiply into one load. */
export const MUL = new Uint8Array(256 * 256);
/** INV[a] = a^-1 for a != 0. */
export const INV = new Uint8Array(256);
for (let a = 1; a < 256; a++) {
  for (let b = 1; b < 256; b++) MUL[a * 256 + b] = EXP[LOG[a] + LOG[b]];
  INV[a] = EXP[255 - LOG[a]];
}

/**
 * @param {number} a
 * @param {number} b
 * @returns {number} a·b in GF(2^8)
 */
export function mul(a, b) {
  return MUL[(a << 8) | b];
}

/**
 * @param {number} a non-zero field element
 * @returns {number} a^-1
 */
export function inv(a) {
  if (a === 0) throw new RangeError('0 has no inverse in GF(2^8)');
  return INV[a];
}
