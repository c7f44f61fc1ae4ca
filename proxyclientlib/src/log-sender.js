// Ships client log records to Origo (`POST /api/logs`) in batches. Records stay queued until
// Origo acknowledged them (stored, duplicate, or rejected as invalid), so an Origo that is down
// for a while loses nothing: we retry with exponential backoff and jitter.
import { backoffDelayMs } from '@mutp/common/backoff';

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
 * @property {{id: string}[]} pending
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
  /** @type {{id: string}[]} */
  const pending = [];
  const counters = { sent: 0, stored: 0, duplicates: 0, rejected: 0, dropped: 0, failures: 0 };
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
    if (pending.length === 0) {
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
    const batch = pending.slice(0, batchMax);
    if (batch.length === 0) return;
    counters.sent += 1;
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      if (res.status !== 200 && res.status !== 400) throw new Error(`Origo answered HTTP ${res.status}`);
      const body = await res.json();
      const acked = ackedIds(body, batch);
      if (acked === null) throw new Error('Origo answered with an unexpected body');
      const ids = new Set(acked.all);
      for (let i = pending.length - 1; i >= 0; i--) if (ids.has(pending[i].id)) pending.splice(i, 1);
      counters.stored += acked.stored;
      counters.duplicates += acked.duplicates;
      counters.rejected += acked.rejected.length;
      for (const r of acked.rejected) logger.warn(`origo rejected log record ${r.id}: ${r.reason}`);
      if (ids.size === 0) throw new Error('Origo acknowledged none of the batch');
      attempt = 0;
    } catch (err) {
      counters.failures += 1;
      attempt += 1;
      if (attempt === 1) logger.warn(`log upload to ${endpoint} failed, will retry: ${/** @type {Error} */ (err).message}`);
    }
  }

  return {
    pending,
    counters,
    enqueue(record) {
      pending.push(record);
      while (pending.length > queueMax) { pending.shift(); counters.dropped += 1; }
      if (attempt === 0) schedule(0);
      else schedule(retryBaseMs);
    },
    flush(timeoutMs = Infinity) {
      if (pending.length === 0 && !inFlight) return Promise.resolve(true);
      return new Promise((resolve) => {
        let t = null;
        const done = () => { clearTimeout(t); resolve(true); };
        drainWaiters.add(done);
        if (Number.isFinite(timeoutMs)) t = setTimeout(() => { drainWaiters.delete(done); resolve(pending.length === 0); }, timeoutMs);
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
 * Check Origo's answer `{stored: [ids], duplicates: [ids], rejected: [{index, id, reason}]}` against the batch.
 * Rejected records are acknowledged too: re-sending an invalid record would never succeed.
 * @param {unknown} body
 * @param {{id: string}[]} batch
 * @returns {{all: string[], stored: number, duplicates: number, rejected: {id: string, reason: string}[]} | null}
 */
function ackedIds(body, batch) {
  if (!body || typeof body !== 'object') return null;
  const b = /** @type {{stored?: unknown, duplicates?: unknown, rejected?: unknown}} */ (body);
  const isIdList = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!isIdList(b.stored) || !isIdList(b.duplicates)) return null;
  const stored = /** @type {string[]} */ (b.stored);
  const duplicates = /** @type {string[]} */ (b.duplicates);
  const rejectedIn = Array.isArray(b.rejected) ? b.rejected : [];
  const rejected = [];
  for (const r of rejectedIn) {
    if (!r || typeof r !== 'object') continue;
    let id = typeof r.id === 'string' ? r.id : null;
    if (id === null && Number.isInteger(r.index) && r.index >= 0 && r.index < batch.length) id = batch[r.index].id;
    if (id !== null) rejected.push({ id, reason: typeof r.reason === 'string' ? r.reason.slice(0, 300) : 'invalid' });
  }
  return { all: [...stored, ...duplicates, ...rejected.map((r) => r.id)], stored: stored.length, duplicates: duplicates.length, rejected };
}
