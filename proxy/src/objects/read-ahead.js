// Read-ahead for single-file streams: a player reads such a file range after range, in order
// (HLS EXT-X-BYTERANGE, DASH SegmentBase/SegmentList). After a range is asked for, the proxy
// fetches the bytes after it from the origin, so the next segment's request finds them cached
// instead of waiting for an origin round trip and transfer. Pure: which range to fetch next.
import { BLOCK_BYTES, blockAligned } from '@mutp/protocol';

/** Fetch this many times the asked range's length: segments vary in size, so the next one is held whole. */
export const READ_AHEAD_FACTOR = 2;
/** At most this many bytes per read-ahead (one long segment), within the proxy's object cap. */
export const READ_AHEAD_MAX_BYTES = 8 * 1024 * 1024;
/** Read-aheads one proxy runs at once: they never take the origin slots clients need. */
export const MAX_READ_AHEADS_IN_FLIGHT = 2;

/**
 * The range likely asked next after `asked`, and the range to fetch for it. Both start at the digest
 * block of the asked range's last byte: the HTTP modes ask whole blocks, so the next range's first
 * block may be that one. The fetch runs READ_AHEAD_FACTOR times the asked length past its end.
 * @param {{ start: number, end: number }} asked  end inclusive
 * @param {number | null} total  the object's size, when the origin said it
 * @param {number} maxBytes  largest fetch
 * @returns {{ next: { start: number, end: number }, fetch: { start: number, end: number } } | null}  null: nothing after it
 */
export function readAheadRange(asked, total, maxBytes) {
  if (total !== null && asked.end + 1 >= total) return null;
  const length = asked.end - asked.start + 1;
  const from = Math.floor(asked.end / BLOCK_BYTES) * BLOCK_BYTES;
  const clamp = (/** @type {{ start: number, end: number }} */ r) => ({ start: r.start, end: total === null ? r.end : Math.min(r.end, total - 1) });
  const next = clamp(blockAligned({ start: from, end: asked.end + length }));
  const fetch = clamp(blockAligned({ start: from, end: Math.max(next.end, Math.min(asked.end + READ_AHEAD_FACTOR * length, from + maxBytes - 1)) }));
  if (fetch.end - fetch.start + 1 > maxBytes) return null; // a range past the cap would only be refused
  return { next, fetch };
}
