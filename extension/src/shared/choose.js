// Per-chunk choice of the transfer mode and N (paper IV: random per chunk in the campaign).
// N is drawn only among the values the usable proxies can serve; a pinned N larger than that
// runs with what there is, and the record says what was wanted and why.

export const FEW_PROXIES = 'ERR_FEW_PROXIES'; // why a download ran with fewer proxies than asked

/** @template T @param {T[]} list @param {() => number} random */
const pick = (list, random) => list[Math.floor(random() * list.length) % list.length];

/**
 * @param {import('./settings.js').Settings} s
 * @param {() => number} [random]
 */
export function chooseMode(s, random = Math.random) {
  return s.mode === 'random' ? pick(s.randomModes, random) : s.mode;
}

/**
 * @param {import('./settings.js').Settings} s
 * @param {number} available  proxies that can serve now (Infinity: not known)
 * @param {() => number} [random]
 * @returns {{n: number, nWanted?: number, nWhy?: string}}
 */
export function chooseN(s, available, random = Math.random) {
  if (s.n !== 'random') return s.n <= available ? { n: s.n } : { n: available, nWanted: s.n, nWhy: FEW_PROXIES };
  const fit = s.randomN.filter((x) => x <= available);
  if (fit.length) return { n: pick(fit, random) };
  return { n: available, nWanted: Math.min(...s.randomN), nWhy: FEW_PROXIES };
}

/** The largest N a download may use: how many connections a warm-up opens. @param {import('./settings.js').Settings} s */
export const maxN = (s) => (s.n === 'random' ? Math.max(...s.randomN) : s.n);

/**
 * @param {import('./settings.js').Settings} s
 * @param {() => number} [random]
 * @returns {{mode: string, n: number}}
 */
export function chooseModeAndN(s, random = Math.random) {
  return { mode: chooseMode(s, random), n: chooseN(s, Infinity, random).n };
}
