// A count per key that forgets a key when its count falls to zero (connections lent per proxy,
// downloads in flight per proxy): no entry is kept for a key nothing counts any more.

/** @template K */
export function createCounts() {
  /** @type {Map<K, number>} */
  const counts = new Map();
  return {
    /** @param {K} key */
    get: (key) => counts.get(key) ?? 0,
    /** @param {K} key */
    add(key) {
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    /** One less; never below zero. @param {K} key */
    remove(key) {
      const n = (counts.get(key) ?? 0) - 1;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    },
  };
}
