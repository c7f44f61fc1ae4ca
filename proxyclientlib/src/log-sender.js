// Ships client log records to Origo (`POST /api/logs`) in batches. Records stay queued until
// Origo acknowledged them (stored, duplicate, or rejected as invalid), so an Origo that is down
// for a while loses nothing: we retry with exponential backoff and jitter.
import { backoffDelayMs } from '@mutp/common/backoff';
import { createLogQueue } from '@mutp/common/log-queue';
import { jsonCapped } from './capped-body.js';
import { MAX_ORIGO_ANSWER_BYTES } from './limits.js';

export const BATCH_MAX_RECORDS = 20; // one POST carries at most this many records: with ~100 KB packet logs each, far below Origo's 8 MiB body cap
export const RETRY_BASE_MS = 500; // first retry delay after a failed POST
export const RETRY_MAX_MS = 30_000; // backoff ceiling: an Origo outage costs at most one POST per 30 s
export const QUEUE_MAX_RECORDS = 10_000; // memory bound; beyond it the oldest records are dropped (counted)
const POST_TIMEOUT_MS = 10_000; // a hung Origo must not block the queue forever

/**
 * @typedef {object} LogSender
 * @property {(record: {id: string}) => void} enqueue
 * @property {(timeoutMs?: number) => Promise<boolean>} flush  resolves true when the queue is empty, false on timeout
 * @property {() => void} close   stops retry timers (queued records are kept in `pending`)
 * @property {{id: string}[]} pending  the queued records, oldest first (a copy)
 * @property {{sent: number, stored: number, duplicates: number, rejected: number, dropped: number, failures: number}} counters
 */

/**
 * @param {object} o
 * @param {string} o.origo                base URL of Origo
 * @param {typeof fetch} o.fetch
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {number} [o.retryBaseMs]
 * @param {number} [o.retryMaxMs]
 * @param {number} [o.batchMax]
 * @param {number} [o.queueMax]
 * @returns {LogSender}
 */
export function createLogSender({ origo, fetch, logger = console, retryBaseMs = RETRY_BASE_MS, retryMaxMs = RETRY_MAX_MS, batchMax = BATCH_MAX_RECORDS, queueMax = QUEUE_MAX_RECORDS }) {
  const endpoint = new URL('/api/logs', origo).toString();
  const counters = { sent: 0, stored: 0, duplicates: 0, rejected: 0, dropped: 0, failures: 0 };
  const queue = createLogQueue({ maxRecords: queueMax, batchMaxRecords: batchMax, onDrop: () => { counters.dropped += 1; } });
  let attempt = 0; // consecutive failures, for the backoff
  let timer = null;
  let inFlight = null;
  let closed = false;
  /** @type {Set<() => void>} */
  const drainWaiters = new Set();

  const schedule = (delayMs) => {
    if (closed || timer || inFlight) return;
    timer = setTimeout(() => { timer = null; inFlight = sendBatch().finally(() => { inFlight = null; afterSend(); }); }, delayMs);
  };

  const afterSend = () => {
    if (queue.size === 0) {
      for (const w of drainWaiters) w();
      drainWaiters.clear();
      return;
    }
    if (attempt === 0) schedule(0);
    else {
      schedule(backoffDelayMs(attempt - 1, { baseMs: retryBaseMs, maxMs: retryMaxMs }));
    }
  };

  async function sendBatch() {
    const batch = queue.takeBatch();
    if (batch.length === 0) return;
    const batchIds = batch.map((r) => r.id);
    counters.sent += 1;
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      if (res.status !== 200 && res.status !== 400) throw new Error(`Origo answered HTTP ${res.status}`);
      const body = await jsonCapped(res, MAX_ORIGO_ANSWER_BYTES, { what: 'Origo\'s ack' });
      if (!isAck(body)) throw new Error('Origo answered with an unexpected body');
      const acked = queue.ack(batchIds, body);
      counters.stored += acked.stored;
      counters.duplicates += acked.duplicates;
      counters.rejected += acked.rejected.length;
      for (const r of acked.rejected) logger.warn(`origo rejected log record ${r.id}: ${r.reason}`);
      if (acked.acked === 0) throw new Error('Origo acknowledged none of the batch');
      attempt = 0;
    } catch (err) {
      queue.release(batchIds);
      counters.failures += 1;
      attempt += 1;
      if (attempt === 1) logger.warn(`log upload to ${endpoint} failed, will retry: ${/** @type {Error} */ (err).message}`);
    }
  }

  return {
    get pending() {
      return queue.records();
    },
    counters,
    enqueue(record) {
      queue.push(record);
      if (attempt === 0) schedule(0);
      else schedule(retryBaseMs);
    },
    flush(timeoutMs = Infinity) {
      if (queue.size === 0 && !inFlight) return Promise.resolve(true);
      return new Promise((resolve) => {
        let t = null;
        const done = () => { clearTimeout(t); resolve(true); };
        drainWaiters.add(done);
        if (Number.isFinite(timeoutMs)) t = setTimeout(() => { drainWaiters.delete(done); resolve(queue.size === 0); }, timeoutMs);
        if (!timer && !inFlight) schedule(0);
      });
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = null;
      for (const w of drainWaiters) w();
      drainWaiters.clear();
    },
  };
}

/**
 * Origo's answer to a batch has id lists for `stored` and `duplicates` (and may reject some).
 * @param {unknown} body
 * @returns {body is {stored: string[], duplicates: string[], rejected?: unknown}}
 */
function isAck(body) {
  const b = /** @type {{stored?: unknown, duplicates?: unknown}} */ (body);
  const isIdList = (/** @type {unknown} */ v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  return !!b && typeof b === 'object' && isIdList(b.stored) && isIdList(b.duplicates);
}
