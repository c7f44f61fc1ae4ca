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
 * @property {number} manifests   HLS playlists and DASH manifests the page read
 * @property {number} segments    requests taken for segments
 * @property {Record<string, number>} byHow  segments by why: pattern, manifest, extension, range
 * @property {Record<string, number>} directBy  direct fetches by error code
 */

/** @returns {TabStats} */
export function emptyStats() {
  return { fleet: 0, direct: 0, last: null, goodputBps: [], proxyBytes: {}, fallbacks: [], manifests: 0, segments: 0, byHow: {}, directBy: {} };
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
  const code = fallbackCode(reason);
  s.directBy = { ...(s.directBy ?? {}), [code]: (s.directBy?.[code] ?? 0) + 1 };
  s.fallbacks = [...s.fallbacks, { at: now.toISOString(), reason, url: url.slice(0, 300) }].slice(-FALLBACKS_KEPT);
  return s;
}

/** The code a fallback reason (`ERR_CODE: text`, `mid-body ERR_CODE: text`) starts with, or 'other'. @param {string} reason */
export function fallbackCode(reason) {
  return /^(?:mid-body )?(ERR_[A-Z0-9_]+)/.exec(reason)?.[1] ?? 'other';
}

/**
 * The page read a manifest, or took a request for a segment.
 * @param {TabStats} s
 * @param {'manifest' | 'segment'} kind
 * @param {string} [how]
 */
export function addSeen(s, kind, how) {
  if (kind === 'manifest') s.manifests = (s.manifests ?? 0) + 1;
  else {
    s.segments = (s.segments ?? 0) + 1;
    const k = typeof how === 'string' ? how.slice(0, 20) : 'pattern';
    s.byHow = { ...(s.byHow ?? {}), [k]: (s.byHow?.[k] ?? 0) + 1 };
  }
  return s;
}
