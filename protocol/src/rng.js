// A small seeded PRNG (mulberry32) so simulations are reproducible. Not for cryptography.

/**
 * Mix a seed with a source index so every source gets its own stream: identical seeds across
 * sources would make them pick, and code, identically.
 * @param {number} seed  u32
 * @param {number} sourceIndex
 * @returns {number} u32
 */
export function sourceSeed(seed, sourceIndex) {
  let h = (seed ^ Math.imul(sourceIndex + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * @param {number} seed u32
 * @returns {() => number} uniform in [0, 1)
 */
export function createRng(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
