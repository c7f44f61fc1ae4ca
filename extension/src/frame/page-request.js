// Messages from the page (untrusted) to the download frame, checked at the edge.

const MAX_URL_CHARS = 8192; // Origo's limit for a logged URL
const MAX_REASON_CHARS = 300;

/**
 * @param {unknown} m
 * @returns {{t: 'get', id: number, url: string, range: {start: number, end: number} | null}
 *   | {t: 'abort', id: number} | {t: 'fallback', url: string, reason: string} | {t: 'bad', why: string}}
 */
export function parsePageMessage(m) {
  if (!m || typeof m !== 'object') return { t: 'bad', why: 'not an object' };
  const o = /** @type {Record<string, any>} */ (m);
  if (o.t === 'fallback') {
    if (typeof o.url !== 'string' || typeof o.reason !== 'string') return { t: 'bad', why: 'fallback without url/reason' };
    return { t: 'fallback', url: o.url.slice(0, MAX_URL_CHARS), reason: o.reason.slice(0, MAX_REASON_CHARS) };
  }
  if (!Number.isSafeInteger(o.id) || o.id < 1) return { t: 'bad', why: 'bad id' };
  if (o.t === 'abort') return { t: 'abort', id: o.id };
  if (o.t !== 'get') return { t: 'bad', why: `unknown type ${String(o.t).slice(0, 20)}` };
  if (typeof o.url !== 'string' || o.url.length > MAX_URL_CHARS) return { t: 'bad', why: 'bad url' };
  try {
    const u = new URL(o.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { t: 'bad', why: 'not http(s)' };
  } catch {
    return { t: 'bad', why: 'bad url' };
  }
  let range = null;
  if (o.range != null) {
    const r = o.range;
    if (typeof r !== 'object' || !Number.isSafeInteger(r.start) || !Number.isSafeInteger(r.end) || r.start < 0 || r.end < r.start) return { t: 'bad', why: 'bad range' };
    range = { start: r.start, end: r.end };
  }
  return { t: 'get', id: o.id, url: o.url, range };
}
