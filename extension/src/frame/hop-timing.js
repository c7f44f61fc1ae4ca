// Where one segment's time goes in the fleet host, for the bench (settings.hopTiming): the
// request's arrival from the page, ProxyClientLib's own marks (proxies in hand, request sent,
// first byte, body verified), the first bytes handed to the page's port and the end posted.
// Clock reads only (performance.now() of this document); the record carries them when asked,
// with this document's time origin, so a reader can line them up with the page's clock.

/** The marks in the order a segment passes them. */
export const HOP_MARKS = /** @type {const} */ (['receivedAt', 'libraryAt', 'listedAt', 'sentAt', 'firstByteAt', 'firstChunkAt', 'doneAt', 'endAt']);

/** @param {number} x */
const tenth = (x) => Math.round(x * 10) / 10; // 0.1 ms: finer is noise

/**
 * @param {() => number} now  performance.now() of this document
 */
export function createHops(now) {
  /** @type {Partial<Record<typeof HOP_MARKS[number], number>>} */
  const at = { receivedAt: now() };
  return {
    /** @param {'libraryAt' | 'firstChunkAt' | 'endAt'} name */
    mark(name) {
      if (name === 'firstChunkAt') at.firstChunkAt ??= now();
      else at[name] = now();
    },
    /** ProxyClientLib's marks of the download that served it. @param {Record<string, number | null> | undefined} t */
    library(t) {
      for (const k of /** @type {const} */ (['listedAt', 'sentAt', 'firstByteAt', 'doneAt'])) {
        const v = t?.[k];
        if (typeof v === 'number' && Number.isFinite(v)) at[k] = v;
      }
    },
    /**
     * The record's `hops` field. @param {{start: number, end: number} | null} range
     * @returns {{origin: number, range: string | null} & Partial<Record<typeof HOP_MARKS[number], number>>}
     */
    record(range) {
      const out = /** @type {any} */ ({ origin: tenth(performance.timeOrigin), range: range ? `${range.start}-${range.end}` : null });
      for (const k of HOP_MARKS) if (at[k] !== undefined) out[k] = tenth(/** @type {number} */ (at[k]));
      return out;
    },
  };
}
