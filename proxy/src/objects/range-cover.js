// Which bytes of an asked range the cached ranges of one object hold, and the copy of it made from
// them. A single-file stream's reads leave overlapping ranges in the cache (each segment's blocks,
// the read-ahead after it, a digest list's span of a few segments), none of which may hold the
// next ask whole, though together they hold most of it: the origin is then asked for the rest
// only. Pure: no cache, no fetch.

/** @typedef {{ start: number, end: number }} ByteRange  end inclusive */

/**
 * The parts of `asked` that no range of `held` covers, in order.
 * @param {ByteRange} asked @param {ByteRange[]} held
 * @returns {ByteRange[]}
 */
export function gapsIn(asked, held) {
  const sorted = held.filter((r) => r.end >= asked.start && r.start <= asked.end).sort((a, b) => a.start - b.start);
  /** @type {ByteRange[]} */
  const gaps = [];
  let next = asked.start; // the first byte not known to be held
  for (const r of sorted) {
    if (r.start > next) gaps.push({ start: next, end: r.start - 1 });
    next = Math.max(next, r.end + 1);
    if (next > asked.end) return gaps;
  }
  gaps.push({ start: next, end: asked.end });
  return gaps;
}

/**
 * The one range that spans every gap (one origin request for all of them), or null: none.
 * @param {ByteRange[]} gaps  in order
 * @returns {ByteRange | null}
 */
export function hullOf(gaps) {
  return gaps.length === 0 ? null : { start: gaps[0].start, end: gaps[gaps.length - 1].end };
}

/**
 * The bytes of `asked`, copied from pieces that together hold all of them (gapsIn gave none).
 * @param {ByteRange} asked
 * @param {{ range: ByteRange, bytes: Uint8Array }[]} pieces  each piece's bytes are its range's
 * @returns {Uint8Array}
 */
export function assemble(asked, pieces) {
  const out = new Uint8Array(asked.end - asked.start + 1);
  for (const p of pieces) {
    const from = Math.max(asked.start, p.range.start);
    const to = Math.min(asked.end, p.range.start + p.bytes.byteLength - 1);
    if (to >= from) out.set(p.bytes.subarray(from - p.range.start, to - p.range.start + 1), from - asked.start);
  }
  return out;
}
