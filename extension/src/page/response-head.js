// Status and headers of a response served through the fleet. The proxies return only bytes,
// so we give the player what a 2018 videoplayback answer told it: length, type, range.

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
 * @param {string} url
 * @param {{start: number, end: number} | null} range
 * @param {number | null} total   bytes of the body, when known
 * @returns {{status: number, statusText: string, headers: [string, string][]}}
 */
export function responseHead(url, range, total) {
  let type = 'application/octet-stream';
  try {
    const mime = new URL(url).searchParams.get('mime'); // YouTube names the media type in the URL
    if (mime && /^[\w.+-]+\/[\w.+-]+$/.test(mime)) type = mime;
  } catch {
    // keep the generic type
  }
  /** @type {[string, string][]} */
  const headers = [['content-type', type]];
  if (total !== null) headers.push(['content-length', String(total)]);
  if (range) {
    headers.push(['content-range', `bytes ${range.start}-${range.start + (total ?? range.end - range.start + 1) - 1}/*`]);
    return { status: 206, statusText: 'Partial Content', headers };
  }
  return { status: 200, statusText: 'OK', headers };
}
