// The proxy's log queue: @mutp/common/log-queue with the limits of its socket.io link to Origo.
import { createLogQueue as createQueue } from '@mutp/common/log-queue';

// Origo accepts up to 1,000 records per emit; smaller batches commit quickly.
export const LOG_BATCH_MAX_RECORDS = 200;
// Origo's socket.io drops a connection on a message over 4 MiB (docs/origo-api.md); stay well below.
export const LOG_BATCH_MAX_JSON_BYTES = 1024 * 1024;
// Memory bound while Origo is away for long: ~1 KB per record → ~100 MB worst case.
export const LOG_QUEUE_MAX_RECORDS = 100_000;

/**
 * @typedef {import('@mutp/common/log-queue').LogRecord} ProxyRecord
 * @param {Parameters<typeof createQueue>[0]} [opts]  onDrop, onAdded, onDone (the spool hangs on the last two)
 */
export function createLogQueue(opts = {}) {
  return createQueue({ maxRecords: LOG_QUEUE_MAX_RECORDS, batchMaxRecords: LOG_BATCH_MAX_RECORDS, batchMaxJsonBytes: LOG_BATCH_MAX_JSON_BYTES, ...opts });
}
