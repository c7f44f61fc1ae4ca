// The HTTP modes stream the body to onProgress as `{offset, bytes}` pieces, like the MUTP
// driver. Several responses can carry the same bytes (Parallel HTTP: every proxy sends the
// whole object; Range-split HTTP: the tail range is duplicated, a failed range is re-fetched),
// so each byte of the result is handed out once: the first time any response brings it.

/**
 * @typedef {{offset: number, bytes: Uint8Array}} Piece  offset in the result (0 = the asked range's first byte)
 */

/** Which byte ranges of the result were already handed out, as sorted disjoint [start, end). */
export function createPieceSet() {
  /** @type {[number, number][]} */
  const spans = [];
  let handedOut = 0;

  /**
   * The parts of `bytes` (at `offset`) not handed out before, marked as handed out now.
   * The returned views point into `bytes`.
   * @param {number} offset
   * @param {Uint8Array} bytes
   * @returns {Piece[]}
   */
  function take(offset, bytes) {
    const end = offset + bytes.byteLength;
    /** @type {Piece[]} */
    const out = [];
    if (!Number.isSafeInteger(offset) || offset < 0 || end <= offset) return out;
    let at = offset;
    let i = 0;
    while (i < spans.length && spans[i][1] < offset) i++; // spans ending before the piece (touching ones are merged below)
    const first = i;
    while (i < spans.length && spans[i][0] <= end) {
      const [s, e] = spans[i];
      if (s > at) out.push({ offset: at, bytes: bytes.subarray(at - offset, s - offset) });
      at = Math.max(at, e);
      i++;
    }
    if (at < end) out.push({ offset: at, bytes: bytes.subarray(at - offset) });
    // merge [offset, end) with the spans it touches: spans[first, i)
    const merged = /** @type {[number, number]} */ ([
      i > first ? Math.min(offset, spans[first][0]) : offset,
      i > first ? Math.max(end, spans[i - 1][1]) : end,
    ]);
    spans.splice(first, i - first, merged);
    for (const p of out) handedOut += p.bytes.byteLength;
    return out;
  }

  return {
    take,
    /** Bytes handed out so far (each counted once). */
    handedOut: () => handedOut,
    /** The handed-out byte ranges, [start, end) (tests and diagnostics). */
    spans: () => spans.map(([s, e]) => [s, e]),
  };
}

/**
 * Call the caller's onProgress; a throwing callback is the caller's bug, not a proxy failure,
 * so it is logged and the download goes on (as in the MUTP driver).
 * @template P
 * @param {((p: P) => void) | undefined} onProgress
 * @param {{warn: (...a: unknown[]) => void}} logger
 * @returns {(p: P) => void}
 */
export function safeProgress(onProgress, logger) {
  if (!onProgress) return () => {};
  return (p) => {
    try {
      onProgress(p);
    } catch (e) {
      logger.warn(`http: onProgress threw: ${/** @type {Error} */ (e)?.message ?? e}`);
    }
  };
}
