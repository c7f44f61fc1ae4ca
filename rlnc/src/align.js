/** Blocks start on 16 bytes so SIMD loads of a symbol never straddle more lines than needed. */
export const ALIGN_BYTES = 16;

/** @param {number} n @returns {number} n rounded up to ALIGN_BYTES */
export function align(n) {
  return Math.ceil(n / ALIGN_BYTES) * ALIGN_BYTES;
}
