// Status and headers of a response served through the fleet.

/**
 * Parse a single `Range: bytes=a-b` header. Open or multiple ranges are not served by the fleet.
 * @param {string | null} h
 * @returns {{start: number, end: number} | null | 'unsupported'}
 */
export function parseRangeHeader(h) {
  if (h == null) return null;
  const m = /^\s*bytes=(\d{1,15})-(\d{1,15})\s*$/.exec(h);
  if (!m) return 'unsupported';
  const start = Number(m[1]);
  const end = Number(m[2]);
  return end >= start ? { start, end } : 'unsupported';
}

/**
 * The head a direct fetch would have given: the origin's Content-Type and the object's size as
 * the proxies relayed them (see frame/origin-head.js); a generic type and `/*` only where they
 * did not say.
 * @param {{start: number, end: number} | null} range
 * @param {import('./frame-link.js').BodyHead} head
 * @returns {{status: number, statusText: string, headers: [string, string][]}}
 */
export function responseHead(range, { total, size, type }) {
  /** @type {[string, string][]} */
  const headers = [['content-type', type ?? 'application/octet-stream']];
  if (total !== null) headers.push(['content-length', String(total)]);
  if (range) {
    headers.push(['content-range', `bytes ${range.start}-${range.start + (total ?? range.end - range.start + 1) - 1}/${size ?? '*'}`]);
    return { status: 206, statusText: 'Partial Content', headers };
  }
  return { status: 200, statusText: 'OK', headers };
}
