// Shared test helpers: deterministic data and the implementations under test.

/** Every implementation must be present; a missing .wasm is a failure, never a skip. */
export const ALL_IMPLS = /** @type {const} */ (['js', 'scalar', 'simd']);

/**
 * Deterministic pseudo-random bytes (LCG; test data only, not coefficients).
 * @param {number} n @param {number} [seed]
 */
export function testData(n, seed = 1) {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
