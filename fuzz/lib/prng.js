// Deterministic PRNG for fuzzing (the simulator's sfc32, with helpers): the same seed gives the same inputs on every machine,
// so a failure found in CI can be replayed with `npm run fuzz -- --seed S --target T`.

import { createPrng } from '@mutp/sim';

/** @param {number} seed */
export function createRng(seed) {
  const next = createPrng(seed).nextUint32; // the simulator's sfc32
  return {
    /** uniform 32-bit unsigned */
    u32: next,
    /** integer in [0, n) @param {number} n */
    int: (n) => (n <= 0 ? 0 : next() % n),
    /** @param {number} p */
    chance: (p) => next() / 2 ** 32 < p,
    /** @template T @param {readonly T[]} list @returns {T} */
    pick: (list) => list[next() % list.length],
    /** @param {number} n */
    bytes(n) {
      const out = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) out[i] = next() & 0xff;
      return out;
    },
  };
}

/** @typedef {ReturnType<typeof createRng>} Rng */
