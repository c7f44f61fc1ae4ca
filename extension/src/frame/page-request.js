// Messages from the page (untrusted) to the download frame, checked at the edge.
import { MAX_PREFETCH_URLS, MAX_URL_CHARS } from '@mutp/proxyclientlib/limits';

const MAX_REASON_CHARS = 300;
const HOWS = ['pattern', 'manifest', 'extension', 'range', 'player']; // why the page takes a request for a segment (player: a player's own loader plugin asked)
const CODE = /^ERR_[A-Z0-9_]{1,60}$/;

/**
 * @typedef {{t: 'get', id: number, url: string, range: ByteRange | null, how: string, next: string | null}
 *   | {t: 'abort', id: number, code: string}
 *   | {t: 'fallback', url: string, reason: string, id: number | null}
 *   | {t: 'seen', kind: 'manifest', url: string, segments: number, templates: number, inits: {url: string, range: ByteRange | null}[]}
 *   | {t: 'warm'}
 *   | {t: 'playing'}
 *   | {t: 'bad', why: string}} PageMessage
 */

/** @param {unknown} u */
function httpUrl(u) {
  if (typeof u !== 'string' || u.length > MAX_URL_CHARS) return null;
  try {
    const p = new URL(u).protocol;
    return p === 'http:' || p === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** @typedef {{start: number, end: number}} ByteRange  end inclusive */

/** @param {unknown} r @returns {ByteRange | null} whole bytes, start ≤ end */
function byteRange(r) {
  const o = /** @type {Record<string, unknown> | null} */ (r && typeof r === 'object' ? r : null);
  if (!o || !Number.isSafeInteger(o.start) || !Number.isSafeInteger(o.end) || Number(o.start) < 0 || Number(o.end) < Number(o.start)) return null;
  return { start: Number(o.start), end: Number(o.end) };
}

const count = (/** @type {unknown} */ v) => (Number.isSafeInteger(v) && /** @type {number} */ (v) >= 0 ? /** @type {number} */ (v) : 0);

/**
 * @param {unknown} m
 * @returns {PageMessage}
 */
export function parsePageMessage(m) {
  if (!m || typeof m !== 'object') return { t: 'bad', why: 'not an object' };
  const o = /** @type {Record<string, any>} */ (m);
  if (o.t === 'warm') return { t: 'warm' };
  if (o.t === 'playing') return { t: 'playing' };
  if (o.t === 'fallback') {
    if (typeof o.url !== 'string' || typeof o.reason !== 'string') return { t: 'bad', why: 'fallback without url/reason' };
    const id = Number.isSafeInteger(o.id) && o.id >= 1 ? o.id : null;
    return { t: 'fallback', url: o.url.slice(0, MAX_URL_CHARS), reason: o.reason.slice(0, MAX_REASON_CHARS), id };
  }
  if (o.t === 'seen') {
    const url = httpUrl(o.url);
    if (o.kind !== 'manifest' || url === null) return { t: 'bad', why: 'bad seen note' };
    // its renditions' init sections (a VOD stream's: files, or byte ranges of one), for the proxies to fetch before the player asks
    /** @type {{url: string, range: ByteRange | null}[]} */
    const inits = [];
    for (const x of Array.isArray(o.inits) ? o.inits.slice(0, MAX_PREFETCH_URLS) : []) {
      const u = httpUrl(x?.url);
      const range = x?.range == null ? null : byteRange(x.range);
      if (u !== null && (x.range == null || range !== null)) inits.push({ url: u, range });
    }
    return { t: 'seen', kind: 'manifest', url, segments: count(o.segments), templates: count(o.templates), inits };
  }
  if (!Number.isSafeInteger(o.id) || o.id < 1) return { t: 'bad', why: 'bad id' };
  if (o.t === 'abort') return { t: 'abort', id: o.id, code: typeof o.code === 'string' && CODE.test(o.code) ? o.code : 'ERR_ABORTED' };
  if (o.t !== 'get') return { t: 'bad', why: `unknown type ${String(o.t).slice(0, 20)}` };
  const url = httpUrl(o.url);
  if (url === null) return { t: 'bad', why: 'bad url' };
  const range = o.range == null ? null : byteRange(o.range);
  if (o.range != null && range === null) return { t: 'bad', why: 'bad range' };
  // the next segment file: on the segment's own origin only (the page names what its player plays next)
  const next = o.next == null ? null : httpUrl(o.next);
  const sameOrigin = next !== null && new URL(next).origin === new URL(url).origin;
  return { t: 'get', id: o.id, url, range, how: HOWS.includes(o.how) ? o.how : 'pattern', next: sameOrigin ? next : null };
}

/** `ERR_CODE: text` → its code and text. @param {string} reason */
export function splitReason(reason) {
  const m = /^(?:mid-body )?(ERR_[A-Z0-9_]{1,60}):?\s*(.*)$/s.exec(reason);
  return m ? { code: m[1], message: m[2].slice(0, MAX_REASON_CHARS) } : { code: 'ERR_FALLBACK', message: reason.slice(0, MAX_REASON_CHARS) };
}
