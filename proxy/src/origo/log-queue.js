/**
 * Proxy log records waiting for Origo's ack. A record leaves the queue only when Origo
 * acked it as stored, duplicate or rejected; everything else (timeouts, disconnects) is
 * sent again, so a restart of Origo loses nothing.
 */

// Origo accepts up to 1,000 records per emit; smaller batches commit quickly.
export const LOG_BATCH_MAX_RECORDS = 200;
// Origo's socket.io drops a connection on a message over 4 MiB (docs/origo-api.md); stay well below.
export const LOG_BATCH_MAX_JSON_BYTES = 1024 * 1024;
// Memory bound while Origo is away for long: ~1 KB per record → ~100 MB worst case.
export const LOG_QUEUE_MAX_RECORDS = 100_000;

/**
 * @typedef {{ id: string } & Record<string, unknown>} ProxyRecord
 * @typedef {{ ok?: boolean, stored?: string[], duplicates?: string[], rejected?: { id: string, reason: string }[] }} LogsAck
 */

/**
 * @param {{ onDrop?: (record: ProxyRecord) => void, onAdded?: (record: ProxyRecord) => void,
 *           onDone?: (ids: string[], left: number, remaining: () => Iterable<ProxyRecord>) => void }} [opts]
 *   onAdded: a new record was queued (not a replayed one); onDone: records left the queue (acked, rejected or dropped).
 *   The spool (log-spool.js) hangs on these two.
 */
export function createLogQueue(opts = {}) {
  const { onDone } = opts;
  /** @type {Map<string, ProxyRecord>} insertion order = age */
  const pending = new Map();
  /** @type {Set<string>} ids in a batch awaiting an ack */
  const inFlight = new Set();
  let dropped = 0;

  return {
    /** @param {ProxyRecord} record @param {{ replayed?: boolean }} [how]  replayed: read back from the spool */
    push(record, how = {}) {
      if (pending.size >= LOG_QUEUE_MAX_RECORDS) {
        const oldest = pending.keys().next().value;
        const rec = pending.get(oldest);
        pending.delete(oldest);
        inFlight.delete(oldest);
        dropped++;
        opts.onDrop?.(rec);
        onDone?.([oldest], pending.size, () => pending.values());
      }
      pending.set(record.id, record);
      if (!how.replayed) opts.onAdded?.(record);
    },
    /** The next batch of records not already in flight (marks them in flight). */
    takeBatch() {
      /** @type {ProxyRecord[]} */
      const batch = [];
      let bytes = 0;
      for (const [id, rec] of pending) {
        if (batch.length >= LOG_BATCH_MAX_RECORDS) break;
        if (inFlight.has(id)) continue;
        const size = JSON.stringify(rec).length;
        // The first record always goes, so a single big record cannot stall the queue.
        if (batch.length > 0 && bytes + size > LOG_BATCH_MAX_JSON_BYTES) break;
        bytes += size;
        inFlight.add(id);
        batch.push(rec);
      }
      return batch;
    },
    /**
     * Applies Origo's ack for a batch. Ids the ack does not mention stay queued.
     * @param {string[]} batchIds
     * @param {LogsAck} ack
     * @param {{ stale?: boolean }} [opts] stale: a late ack from a closed connection; the
     *   ids may be in flight again in a newer batch, whose ack clears them
     * @returns {{ acked: number, rejected: { id: string, reason: string }[] }}
     */
    ack(batchIds, ack, opts = {}) {
      if (!opts.stale) for (const id of batchIds) inFlight.delete(id);
      const rejected = Array.isArray(ack?.rejected) ? ack.rejected.filter((r) => r && typeof r.id === 'string') : [];
      const done = [
        ...(Array.isArray(ack?.stored) ? ack.stored : []),
        ...(Array.isArray(ack?.duplicates) ? ack.duplicates : []),
        // A rejected record would be rejected again: drop it (the caller logs why).
        ...rejected.map((r) => r.id),
      ];
      const inBatch = new Set(batchIds);
      /** @type {string[]} */
      const gone = [];
      for (const id of done) {
        if (typeof id === 'string' && inBatch.has(id) && pending.delete(id)) gone.push(id);
      }
      if (gone.length) onDone?.(gone, pending.size, () => pending.values());
      return { acked: gone.length, rejected };
    },
    /** A batch failed (timeout, disconnect): its records go back to waiting. @param {string[]} batchIds */
    release(batchIds) {
      for (const id of batchIds) inFlight.delete(id);
    },
    /** Everything in flight goes back to waiting (after a disconnect). */
    releaseAll() {
      inFlight.clear();
    },
    get size() {
      return pending.size;
    },
    get inFlightCount() {
      return inFlight.size;
    },
    get dropped() {
      return dropped;
    },
  };
}
