// Per-tab statistics for the popup: chunks through the fleet vs direct, the last mode and N,
// goodput history, bytes per proxy, fallbacks with their reasons.

const GOODPUT_HISTORY = 40; // sparkline points
const FALLBACKS_KEPT = 20; // the popup lists the most recent ones

/**
 * @typedef {object} TabStats
 * @property {number} fleet
 * @property {number} direct
 * @property {{mode: string, n: number} | null} last
 * @property {number[]} goodputBps
 * @property {Record<string, number>} proxyBytes
 * @property {{at: string, reason: string, url: string}[]} fallbacks
 */

/** @returns {TabStats} */
export function emptyStats() {
  return { fleet: 0, direct: 0, last: null, goodputBps: [], proxyBytes: {}, fallbacks: [] };
}

/**
 * A served chunk (its client record) into the tab's stats. Failed downloads count as nothing
 * here: the page's fallback report counts them as direct.
 * @param {TabStats} s
 * @param {Record<string, any>} r
 */
export function addRecord(s, r) {
  if (r.error) return s;
  s.fleet += 1;
  s.last = { mode: String(r.mode), n: Number(r.n) };
  if (r.durationMs > 0) s.goodputBps = [...s.goodputBps, Math.round(r.netBytes / (r.durationMs / 1000))].slice(-GOODPUT_HISTORY);
  if (Array.isArray(r.perProxy)) {
    for (const p of r.perProxy) {
      if (typeof p?.proxyId !== 'string') continue;
      s.proxyBytes[p.proxyId] = (s.proxyBytes[p.proxyId] ?? 0) + (Number.isFinite(p.bytes) ? p.bytes : 0);
    }
  }
  return s;
}

/**
 * @param {TabStats} s
 * @param {string} url
 * @param {string} reason
 * @param {Date} [now]
 */
export function addFallback(s, url, reason, now = new Date()) {
  s.direct += 1;
  s.fallbacks = [...s.fallbacks, { at: now.toISOString(), reason, url: url.slice(0, 300) }].slice(-FALLBACKS_KEPT);
  return s;
}
