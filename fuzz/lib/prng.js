// Deterministic PRNG for fuzzing (sfc32): the same seed gives the same inputs on every machine,
// so a failure found in CI can be replayed with `npm run fuzz -- --seed S --target T`.

/** @param {number} seed */
export function createRng(seed) {
  let a = 0x9e3779b9 ^ seed, b = 0x243f6a88, c = 0xb7e15162, d = seed | 0;
  const next = () => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) next(); // mix the seed in
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
