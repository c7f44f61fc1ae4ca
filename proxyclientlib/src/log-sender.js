// Ships client log records to Origo (`POST /api/logs`, log-post.js) in batches, from memory;
// with batchDelayMs, the records of a burst (a player's first segments) ride one POST.
// Records stay queued until Origo acknowledged them (stored, duplicate, or rejected as invalid),
// so an Origo that is down for a while loses nothing: we retry with exponential backoff and jitter.
import { backoffDelayMs } from '@mutp/common/backoff';
import { createLogQueue } from '@mutp/common/log-queue';
import { LOG_BATCH_MAX_RECORDS, beaconLogBatch, logsEndpoint, postLogBatch } from './log-post.js';

export const RETRY_BASE_MS = 500; // first retry delay after a failed POST
export const RETRY_MAX_MS = 30_000; // backoff ceiling: an Origo outage costs at most one POST per 30 s
export const QUEUE_MAX_RECORDS = 10_000; // memory bound; beyond it the oldest records are dropped (counted)

/**
 * @typedef {object} LogSender
 * @property {(record: {id: string}) => void} enqueue
 * @property {(timeoutMs?: number) => Promise<boolean>} flush  resolves true when the queue is empty, false on timeout
 * @property {() => Promise<void>} sendAll  every queued record not in a POST already goes in POSTs begun before the
 *   caller's task ends, with no timer between (a page being unloaded runs none); resolves when they settled
 * @property {() => Promise<void>} beaconAll  for a page that goes away: every queued record, also one in a POST now, goes by
 *   beacon, begun before this returns; they stay queued (a beacon's answer cannot be read). With no sendBeacon, or a
 *   beacon refused, as sendAll; resolves when its POSTs settled
 * @property {() => void} close   stops retry timers (queued records are kept in `pending`)
 * @property {{id: string}[]} pending  the queued records, oldest first (a copy)
 * @property {{sent: number, stored: number, duplicates: number, rejected: number, dropped: number, failures: number, beacons: number}} counters
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
 * @param {number} [o.batchDelayMs]  a record waits this long for others to ride its POST (0: sent at once);
 *   a backlog of a whole batch, and flush(), send at once
 * @param {(url: string, body: string) => boolean} [o.sendBeacon]  a page's beacon, for beaconAll; false: not taken
 * @returns {LogSender}
 */
export function createLogSender({ origo, fetch, logger = console, retryBaseMs = RETRY_BASE_MS, retryMaxMs = RETRY_MAX_MS, batchMax = LOG_BATCH_MAX_RECORDS, queueMax = QUEUE_MAX_RECORDS, batchDelayMs = 0, sendBeacon }) {
  const endpoint = logsEndpoint(origo);
  const counters = { sent: 0, stored: 0, duplicates: 0, rejected: 0, dropped: 0, failures: 0, beacons: 0 };
  const queue = createLogQueue({ maxRecords: queueMax, batchMaxRecords: batchMax, onDrop: () => { counters.dropped += 1; } });
  let attempt = 0; // consecutive failures, for the backoff
  let timer = null;
  let batching = false; // the timer waits for a batch to fill, not out a backoff
  let inFlight = null;
  let closed = false;
  /** @type {Set<() => void>} */
  const drainWaiters = new Set();

  const schedule = (delayMs, forBatch = false) => {
    if (closed || timer || inFlight) return;
    batching = forBatch;
    timer = setTimeout(() => { timer = null; inFlight = sendBatch().finally(() => { inFlight = null; afterSend(); }); }, delayMs);
  };
  /** The next POST at once: a batch's wait ends, a backoff's does not. */
  const sendNow = () => {
    if (timer && batching) {
      clearTimeout(timer);
      timer = null;
    }
    schedule(0);
  };
  /** The next POST with no backoff: at once when a batch is full or someone waits for the queue to drain. */
  const scheduleNext = () => (queue.size >= batchMax || drainWaiters.size > 0 ? sendNow() : schedule(batchDelayMs, true));

  const afterSend = () => {
    if (queue.size === 0) {
      for (const w of drainWaiters) w();
      drainWaiters.clear();
      return;
    }
    if (attempt === 0) scheduleNext();
    else {
      schedule(backoffDelayMs(attempt - 1, { baseMs: retryBaseMs, maxMs: retryMaxMs }));
    }
  };

  async function sendBatch() {
    const batch = queue.takeBatch();
    if (batch.length === 0) return;
    await postBatch(batch);
  }

  /** @param {{id: string}[]} batch  taken from the queue */
  async function postBatch(batch) {
    counters.sent += 1;
    try {
      const rejected = await postLogBatch({ fetch, endpoint, queue, batch, counters });
      for (const r of rejected) logger.warn(`origo rejected log record ${r.id}: ${r.reason}`);
      attempt = 0;
    } catch (err) {
      counters.failures += 1;
      attempt += 1;
      if (attempt === 1) logger.warn(`log upload to ${endpoint} failed, will retry: ${/** @type {Error} */ (err).message}`);
    }
  }

  /**
   * Every queued record not in a POST already, in POSTs begun before the caller's task ends, with
   * no timer between (a page being unloaded runs none). Resolves when they settled.
   */
  async function sendQueued() {
    if (timer && batching) {
      clearTimeout(timer);
      timer = null;
    }
    /** @type {Promise<void>[]} */
    const posts = [];
    for (let batch = queue.takeBatch(); batch.length > 0; batch = queue.takeBatch()) posts.push(postBatch(batch));
    await Promise.all(posts);
    if (!inFlight && !timer) afterSend(); // what failed goes again, after the backoff; a flush waiting learns the queue is empty
  }

  /**
   * Every queued record by beacon, in batches; none is marked as sent, so a caller stopped midway
   * may call again, and a page that lives on sends them at the batch's time as ever (Origo takes a
   * record twice as a duplicate). A POST now may be lost with its page, so its records go too.
   */
  function beaconQueued() {
    if (!sendBeacon) return sendQueued();
    const records = queue.records();
    for (let i = 0; i < records.length; i += batchMax) {
      if (!beaconLogBatch({ sendBeacon, endpoint, batch: records.slice(i, i + batchMax) })) return sendQueued();
      counters.beacons += 1;
    }
    return Promise.resolve();
  }

  return {
    get pending() {
      return queue.records();
    },
    counters,
    enqueue(record) {
      queue.push(record);
      if (attempt === 0) scheduleNext();
      else schedule(retryBaseMs);
    },
    flush(timeoutMs = Infinity) {
      if (queue.size === 0 && !inFlight) return Promise.resolve(true);
      return new Promise((resolve) => {
        let t = null;
        const done = () => { clearTimeout(t); resolve(true); };
        drainWaiters.add(done);
        if (Number.isFinite(timeoutMs)) t = setTimeout(() => { drainWaiters.delete(done); resolve(queue.size === 0); }, timeoutMs);
        sendNow();
      });
    },
    sendAll: sendQueued,
    beaconAll: beaconQueued,
    close() {
      closed = true;
      clearTimeout(timer);
      timer = null;
      for (const w of drainWaiters) w();
      drainWaiters.clear();
    },
  };
}
