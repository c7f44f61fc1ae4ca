// Log records waiting for Origo's ack, for every sender (the proxy over socket.io, the client
// library over HTTP). A record leaves the queue only when Origo acked it as stored, duplicate or
// rejected; everything else (timeouts, disconnects, HTTP errors) is sent again, so a restart of
// Origo loses nothing. Storage is the caller's: onAdded/onDone are where a spool or a browser's
// storage hangs (the proxy's log-spool.js). Origo's answer is the same on both paths:
// { stored: [ids], duplicates: [ids], rejected: [{ id | index, reason }] } (docs/origo-api.md).

/**
 * @typedef {{ id: string } & Record<string, unknown>} LogRecord
 * @typedef {{ ok?: boolean, stored?: unknown, duplicates?: unknown, rejected?: unknown }} LogsAck
 */

/**
 * @param {{ maxRecords?: number, batchMaxRecords?: number, batchMaxJsonBytes?: number,
 *           onDrop?: (record: LogRecord) => void, onAdded?: (record: LogRecord) => void,
 *           onDone?: (ids: string[], left: number, remaining: () => Iterable<LogRecord>) => void }} [opts]
 *   maxRecords: memory bound, beyond it the oldest record is dropped (onDrop);
 *   batchMaxRecords / batchMaxJsonBytes: what one send may carry (the first record always goes);
 *   onAdded: a new record was queued (not a replayed one); onDone: records left the queue (acked, rejected or dropped).
 */
export function createLogQueue(opts = {}) {
  const { onDone, maxRecords = Infinity, batchMaxRecords = Infinity, batchMaxJsonBytes = Infinity } = opts;
  /** @type {Map<string, LogRecord>} insertion order = age */
  const pending = new Map();
  /** @type {Set<string>} ids in a batch awaiting an ack */
  const inFlight = new Set();
  let dropped = 0;

  return {
    /** @param {LogRecord} record @param {{ replayed?: boolean }} [how]  replayed: read back from storage */
    push(record, how = {}) {
      if (pending.size >= maxRecords) {
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
      /** @type {LogRecord[]} */
      const batch = [];
      let bytes = 0;
      for (const [id, rec] of pending) {
        if (batch.length >= batchMaxRecords) break;
        if (inFlight.has(id)) continue;
        const size = Number.isFinite(batchMaxJsonBytes) ? JSON.stringify(rec).length : 0;
        // The first record always goes, so a single big record cannot stall the queue.
        if (batch.length > 0 && bytes + size > batchMaxJsonBytes) break;
        bytes += size;
        inFlight.add(id);
        batch.push(rec);
      }
      return batch;
    },
    /**
     * Applies Origo's ack for a batch. Ids the ack does not mention stay queued; a rejection may
     * name its record by id or by its index in the batch.
     * @param {string[]} batchIds
     * @param {LogsAck} ack
     * @param {{ stale?: boolean }} [how] stale: a late ack from a closed connection; the
     *   ids may be in flight again in a newer batch, whose ack clears them
     * @returns {{ acked: number, stored: number, duplicates: number, rejected: { id: string, reason: string }[] }}
     */
    ack(batchIds, ack, how = {}) {
      if (!how.stale) for (const id of batchIds) inFlight.delete(id);
      const inBatch = new Set(batchIds);
      /** @param {unknown} v */
      const ids = (v) => (Array.isArray(v) ? v.filter((id) => typeof id === 'string' && inBatch.has(id)) : []);
      const stored = ids(ack?.stored);
      const duplicates = ids(ack?.duplicates);
      /** @type {{ id: string, reason: string }[]} */
      const rejected = [];
      for (const r of Array.isArray(ack?.rejected) ? ack.rejected : []) {
        if (!r || typeof r !== 'object') continue;
        const id = typeof r.id === 'string' ? r.id : Number.isInteger(r.index) ? batchIds[r.index] : undefined;
        if (typeof id === 'string' && inBatch.has(id)) rejected.push({ id, reason: typeof r.reason === 'string' ? r.reason.slice(0, 300) : 'invalid' });
      }
      /** @type {string[]} */
      const gone = [];
      // A rejected record would be rejected again: it leaves too (the caller logs why).
      for (const id of [...stored, ...duplicates, ...rejected.map((r) => r.id)]) if (pending.delete(id)) gone.push(id);
      if (gone.length) onDone?.(gone, pending.size, () => pending.values());
      return { acked: gone.length, stored: stored.length, duplicates: duplicates.length, rejected };
    },
    /** A batch failed (timeout, disconnect, HTTP error): its records go back to waiting. @param {string[]} batchIds */
    release(batchIds) {
      for (const id of batchIds) inFlight.delete(id);
    },
    /** Everything in flight goes back to waiting (after a disconnect). */
    releaseAll() {
      inFlight.clear();
    },
    /** The queued records, oldest first. */
    records() {
      return [...pending.values()];
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
