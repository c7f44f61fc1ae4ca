// What the frame tells the background (records, fallbacks, segments seen) goes in batches: each
// runtime message costs the browser process, the service worker, a stats update and a log-queue
// write, and one message per segment was ~1.1-1.6 s of CPU over a 6 s dash coded play in
// Chromium (all processes, against the same play with none sent).
import { BACKGROUND_BATCH_MAX } from '../shared/page-messages.js';

export const BACKGROUND_BATCH_MS = 500; // how long a message may wait for others; the popup's counts lag this much

/**
 * @param {object} o
 * @param {(batch: {t: 'batch', msgs: object[]}) => void} o.send  one runtime message
 * @param {(fn: () => void, ms: number) => unknown} [o.setTimer]
 * @param {(t: unknown) => void} [o.clearTimer]
 */
export function createBackgroundBatch({ send, setTimer = setTimeout, clearTimer = (t) => clearTimeout(/** @type {any} */ (t)) }) {
  /** @type {object[]} */
  let msgs = [];
  /** @type {unknown} */
  let timer = null;

  /** Send what waits, now (also when the page goes away). */
  function flush() {
    if (timer !== null) clearTimer(timer);
    timer = null;
    if (msgs.length === 0) return;
    const batch = msgs;
    msgs = [];
    send({ t: 'batch', msgs: batch });
  }

  /** @param {object} msg */
  function add(msg) {
    msgs.push(msg);
    if (msgs.length >= BACKGROUND_BATCH_MAX) flush();
    else timer ??= setTimer(flush, BACKGROUND_BATCH_MS);
  }

  return { add, flush };
}
