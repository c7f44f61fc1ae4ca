// A feedback message holds the receiver's whole state (the echo per proxy, what each generation
// still lacks), the same bytes for every proxy, so a newer one makes every older unsent one
// worthless. When the receiving thread falls behind (busy decoding while packets wait as queued
// tasks), the controller answers several queued packets in a row, and each answer would cost a
// data-channel send on this thread and a message the proxy must read. The outbox holds the
// newest feedback until the tasks queued now have run, then sends it to every proxy that was owed
// one: packets that come one at a time are answered one task later; a burst is answered once.
// Measured on loopback, 4 proxies, headless Chromium on 2 cores: in an hls.js play in Coded
// MUTP 3 of 4 feedback sends were replaced before they went; `npm run bench:extension` (1 MiB
// coded chunks) took 195–211 ms to the complete chunk without the outbox, 162–191 ms with it
// (medians of 40, 3 runs each, alternated).
//
// Every proxy it sends to gets the same newest message: a proxy splits each generation entering
// the window among the proxies by the rates in the feedback that moved the window, so proxies told
// different states assign overlapping shares (duplicates) and leave gaps (only a helper fills
// them). Holding each proxy's own newest did that on loopback: in a 32 MiB coded download the
// 4 proxies' shares disagreed in 884 of 1272 generations.

/**
 * Replaceable messages taken while one is held before the outbox sends without waiting for the
 * queued tasks. A Node client gets a backlog of messages in one go (node-datachannel hands them
 * over from its thread in a batch), so "after the queued tasks" came once per ~120 packets of
 * each proxy on loopback (bench:cost, 32 MiB coded: ~90 feedbacks per proxy), and every proxy's
 * view of the download, its own packets in transit included, was that old. A feedback is due
 * about every 8 packets of a proxy: 8 of them, with 4 proxies, is about 16 packets of each.
 */
export const FLUSH_AFTER_REPLACED = 8;

/**
 * @template L
 * @param {(link: L, bytes: Uint8Array) => void} transmit  sends on the link's channel now
 * @param {(run: () => void) => void} [afterQueuedTasks]  runs `run` once the tasks queued now have
 *   run: a 0 ms timer, which queues behind the data-channel messages already waiting
 */
export function createFeedbackOutbox(transmit, afterQueuedTasks = (run) => { setTimeout(run, 0); }) {
  /** @type {Set<L>} links owed the newest replaceable message, not sent yet */
  const owed = new Set();
  /** @type {Uint8Array | null} the newest replaceable message, while some link is owed it */
  let newest = null;
  let flushQueued = false;
  let replaced = 0;
  /** replaceable messages taken since the last send of the held one */
  let heldSince = 0;

  function sendHeld() {
    const bytes = newest;
    newest = null;
    heldSince = 0;
    if (!bytes) return;
    const due = [...owed];
    owed.clear();
    for (const link of due) transmit(link, bytes);
  }

  function flush() {
    flushQueued = false;
    sendHeld();
  }

  return {
    /**
     * @param {L} link @param {Uint8Array} bytes
     * @param {boolean} replaceable  a later replaceable message makes it worthless (the same state for every link)
     */
    send(link, bytes, replaceable) {
      if (replaceable) {
        if (newest) {
          replaced++;
          heldSince++;
        }
        newest = bytes;
        owed.add(link);
        if (heldSince >= FLUSH_AFTER_REPLACED) sendHeld();
        else if (!flushQueued) {
          flushQueued = true;
          afterQueuedTasks(flush);
        }
        return;
      }
      // a proxy hears our messages in the order the controller made them: the held one was made before
      if (newest && owed.has(link)) {
        owed.delete(link);
        transmit(link, newest);
        if (owed.size === 0) {
          newest = null;
          heldSince = 0;
        }
      }
      transmit(link, bytes);
    },
    /** The download ended: nothing held is sent. */
    clear() {
      owed.clear();
      newest = null;
      heldSince = 0;
    },
    /** replaceable messages not sent because a newer one replaced them */
    get replaced() {
      return replaced;
    },
  };
}
