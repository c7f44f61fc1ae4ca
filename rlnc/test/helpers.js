// Shared test helpers: deterministic data and the implementations under test.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

/**
 * Node 20 (V8 11.3) implements relaxed SIMD behind a flag; Node 22+ and current browsers ship
 * it. The tests turn the flag on when needed so the 'relaxed' build is always tested: if
 * the engine still rejects it, its tests fail, they never skip.
 */
const relaxedBytes = readFileSync(new URL('../wasm/rlnc-relaxed.wasm', import.meta.url));
if (!WebAssembly.validate(relaxedBytes)) v8.setFlagsFromString('--experimental-wasm-relaxed-simd');

/** Every implementation must be present; a missing .wasm is a failure, never a skip. */
export const ALL_IMPLS = /** @type {const} */ (['js', 'scalar', 'simd', 'relaxed']);

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
