// Seeded pseudo-random numbers for the simulator (sfc32: small, fast, passes PractRand
// at this scale). Same seed, same sequence: the simulator's determinism rests on it.

/**
 * @param {number} seed  any 32-bit integer
 * @returns {{next: () => number, nextUint32: () => number}}
 */
export function createPrng(seed) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  function nextUint32() {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  }
  // Warm-up: discard the first outputs, which still look like the seed.
  for (let k = 0; k < 15; k++) nextUint32();
  return {
    nextUint32,
    /** Uniform in [0, 1). */
    next: () => nextUint32() / 4294967296,
  };
}

/**
 * Deterministic pseudo-random bytes (the simulated object's content).
 * @param {number} length
 * @param {number} seed
 */
export function randomBytes(length, seed) {
  const prng = createPrng(seed);
  const out = new Uint8Array(length);
  const words = new Uint32Array(out.buffer, 0, length >>> 2);
  for (let k = 0; k < words.length; k++) words[k] = prng.nextUint32();
  for (let k = words.length * 4; k < length; k++) out[k] = prng.nextUint32() & 0xff;
  return out;
}
