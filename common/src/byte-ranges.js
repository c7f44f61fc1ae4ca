// HTTP byte-range headers (RFC 9110 §14), parsed at the edge: one place for the formats the
// proxies and the client read. Ends are inclusive.

/**
 * `Content-Range: bytes a-b/total` (total may be `*`).
 * @param {string | null | undefined} header
 * @returns {{start: number, end: number, total: number | null} | null}  null when malformed
 */
export function parseContentRange(header) {
  if (!header) return null;
  const m = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15}|\*)$/.exec(header.trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  const total = m[3] === '*' ? null : Number(m[3]);
  if (end < start || (total !== null && end >= total)) return null;
  return { start, end, total };
}

/**
 * `Range: bytes=a-b`, one closed range; anything else (open, suffix, several ranges) needs the
 * object's size first: null.
 * @param {string | null | undefined} header
 * @returns {{start: number, end: number} | null}
 */
export function parseClosedRange(header) {
  const m = /^bytes=(\d{1,15})-(\d{1,15})$/.exec(String(header ?? '').trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  return end >= start ? { start, end } : null;
}
