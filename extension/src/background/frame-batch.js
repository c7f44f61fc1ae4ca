// What the download frames report (records, fallbacks, segments seen) is taken in batches: each
// report taken alone cost a stats update in session storage, a log-queue write to local storage
// and a POST to Origo, which over a 6 s dash coded play in Chromium added up to more CPU than the
// fleet host's own work. The frames still send each report as it happens: a batch waiting in a
// frame would be lost with its page.

export const FRAME_BATCH_MS = 500; // how long a report may wait for others; the popup's counts lag this much
export const FRAME_BATCH_MAX = 50; // reports in one batch (records are ~6 KB each)

/**
 * @template T
 * @param {object} o
 * @param {(items: T[]) => void} o.take  a batch, in arrival order
 * @param {(fn: () => void, ms: number) => unknown} [o.setTimer]
 * @param {(t: unknown) => void} [o.clearTimer]
 */
export function createFrameBatch({ take, setTimer = setTimeout, clearTimer = (t) => clearTimeout(/** @type {any} */ (t)) }) {
  /** @type {T[]} */
  let items = [];
  /** @type {unknown} */
  let timer = null;

  /** Take what waits, now. */
  function flush() {
    if (timer !== null) clearTimer(timer);
    timer = null;
    if (items.length === 0) return;
    const batch = items;
    items = [];
    take(batch);
  }

  /** @param {T} item */
  function add(item) {
    items.push(item);
    if (items.length >= FRAME_BATCH_MAX) flush();
    else timer ??= setTimer(flush, FRAME_BATCH_MS);
  }

  return { add, flush };
}
