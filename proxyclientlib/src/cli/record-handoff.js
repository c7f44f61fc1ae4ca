// How a `mutp get` gets its stats records to Origo without waiting for Origo's ack, a round trip
// and Origo's insert before the process could exit. At the end it keeps the records Origo has not
// acknowledged in the spool (record-spool.js), hands them to TCP (kept-fetch's handOff: the
// request written, not answered) and exits; TCP delivers them after the exit. The next get sends
// the kept records again as soon as its lookup is answered (Origo stores a record once, by id,
// and acks a second copy as a duplicate), on a sender of their own, and removes their files once
// Origo acknowledged them; a get too short to see that ack waits for it (LOG_FLUSH_TIMEOUT_MS at
// most), else the files stay for the next get. So a record is in the spool or acknowledged at
// every moment. Without a cache directory there is no spool: a get waits for the ack instead.
import { createLogSender } from '../log-sender.js';
import { readSpooled, removeSpooled, spoolRecords } from './record-spool.js';

export const LOG_FLUSH_TIMEOUT_MS = 3000; // a get waits at most this long for an ack it needs
/** A get's own records wait for its end this long before they go on their own, ms: they go at the end, handed off. */
export const RECORD_HOLD_MS = 60_000;

/**
 * @typedef {{ warn: (...a: unknown[]) => void }} Logger
 * @typedef {{ beaconLogs: () => Promise<void>, flushLogs: (timeoutMs: number) => Promise<boolean>, logRecords: () => {id: string}[] }} RecordClient
 */

/**
 * @param {{ dir: string | null, origo: string, fetch: typeof fetch, handOff: (url: string, body: string) => Promise<boolean>, logger: Logger }} o
 *   dir: the cache directory (null: no spool); fetch, handOff: kept-fetch's
 */
export function createRecordHandoff({ dir, origo, fetch, handOff, logger }) {
  /** @type {Promise<boolean>[]} */
  const writes = [];
  let ending = false; // a kept POST cut by the exit is no news: its records stay kept
  const quietAtEnd = { warn: (/** @type {unknown[]} */ ...a) => { if (!ending) logger.warn(...a); } };
  const keptSender = createLogSender({ origo, fetch, logger: quietAtEnd });
  /** @type {Promise<{ files: string[], taken: boolean }>} */
  let kept = Promise.resolve({ files: [], taken: true });

  return {
    /** The client's log sender options: its records wait for the end, where they are handed off (the sender's beacon). */
    senderOptions: dir === null ? {} : {
      batchDelayMs: RECORD_HOLD_MS,
      sendBeacon: (/** @type {string} */ url, /** @type {string} */ body) => {
        writes.push(handOff(url, body));
        return true;
      },
    },

    /** Send the records earlier gets kept, now. */
    sendKept() {
      if (dir === null) return;
      kept = readSpooled(dir, origo, logger).then(async ({ records, files }) => {
        for (const r of records) keptSender.enqueue(r);
        return { files, taken: records.length === 0 || await keptSender.flush(LOG_FLUSH_TIMEOUT_MS) };
      });
    },

    /**
     * Keep what Origo has not acknowledged and hand it off (with no spool, wait for the ack);
     * remove the files of earlier records Origo acknowledged. A warning for the user, or null.
     * @param {RecordClient} client
     * @returns {Promise<string | null>}
     */
    async finish(client) {
      try {
        if (dir === null) {
          const taken = await client.flushLogs(LOG_FLUSH_TIMEOUT_MS);
          return taken ? null : `Origo did not take the stats records within ${LOG_FLUSH_TIMEOUT_MS} ms; they were not logged`;
        }
        const earlier = await kept;
        if (earlier.taken) await removeSpooled(earlier.files);
        const left = client.logRecords();
        if (left.length === 0) return null;
        const folder = await spoolRecords(dir, origo, left, Date.now(), logger);
        if (!folder) {
          const taken = await client.flushLogs(LOG_FLUSH_TIMEOUT_MS); // they could not be kept: wait for the ack after all
          return taken ? null : `Origo did not take ${left.length} stats record(s) within ${LOG_FLUSH_TIMEOUT_MS} ms, and they could not be kept; they were not logged`;
        }
        await client.beaconLogs();
        const sent = await Promise.all(writes);
        return sent.every(Boolean) ? null : `the stats records did not leave for Origo; kept in ${folder} for the next get`;
      } finally {
        ending = true;
        keptSender.close();
      }
    },
  };
}
