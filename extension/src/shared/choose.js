// Per-chunk choice of the transfer mode and N (paper IV: random per chunk in the campaign).

/**
 * @param {import('./settings.js').Settings} s
 * @param {() => number} [random]
 * @returns {{mode: string, n: number}}
 */
export function chooseModeAndN(s, random = Math.random) {
  const pick = (list) => list[Math.floor(random() * list.length) % list.length];
  const mode = s.mode === 'random' ? pick(s.randomModes) : s.mode;
  const n = s.n === 'random' ? pick(s.randomN) : s.n;
  return { mode, n };
}
