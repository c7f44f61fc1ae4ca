// Client records on their way to Origo (`POST /api/logs`): batched, kept in extension storage
// until Origo acknowledged them, retried with backoff while the background lives and by an
// alarm after it was suspended. Nothing is lost while Origo is down (up to the queue cap).
import { backoffDelayMs } from '@mutp/common/backoff';
import { createLogQueue as createQueue } from '@mutp/common/log-queue';
import { LOG_BATCH_MAX_RECORDS, logsEndpoint, postLogBatch } from '@mutp/proxyclientlib/log-post';

export const QUEUE_MAX_RECORDS = 500; // storage bound (records carry packet logs); the oldest go first
const RETRY_BASE_MS = 1000; // first retry after a failed POST
const RETRY_MAX_MS = 60_000; // backoff ceiling
export const RETRY_ALARM = 'mutp-log-retry';
const ALARM_PERIOD_MIN = 1; // browsers' minimum alarm granularity

/**
 * @param {object} o
 * @param {{get: (k: string) => Promise<Record<string, any>>, set: (v: object) => Promise<void>}} o.storage
 * @param {() => Promise<string>} o.origoUrl
 * @param {typeof fetch} [o.fetch]
 * @param {(name: string, minutes: number) => void} [o.armAlarm]
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 */
export function createLogQueue({ storage, origoUrl, fetch = globalThis.fetch, armAlarm = () => {}, logger = console }) {
  const KEY = 'logQueue';
  /** @type {ReturnType<typeof createQueue> | null} the records, read from storage once */
  let queue = null;
  let sending = null;
  let attempt = 0;
  let timer = null;
  const counters = { stored: 0, duplicates: 0, rejected: 0, failures: 0, dropped: 0 };

  async function load() {
    if (queue) return queue;
    const got = await storage.get(KEY);
    const q = createQueue({ maxRecords: QUEUE_MAX_RECORDS, batchMaxRecords: LOG_BATCH_MAX_RECORDS, onDrop: () => { counters.dropped += 1; } });
    for (const r of Array.isArray(got[KEY]) ? got[KEY] : []) if (r && typeof r.id === 'string') q.push(r, { replayed: true });
    queue ??= q;
    return queue;
  }
  const persist = () => storage.set({ [KEY]: queue.records() });

  /** @param {{id: string}[]} records  stored together: one storage write */
  async function add(records) {
    const q = await load();
    for (const r of records) q.push(r);
    await persist();
    flush();
  }

  /** Send until the queue is empty or a POST fails. */
  function flush() {
    if (sending) return sending;
    clearTimeout(timer);
    timer = null;
    sending = (async () => {
      const q = await load();
      while (q.size > 0) {
        if (!(await post(q, q.takeBatch()))) {
          attempt += 1;
          counters.failures += 1;
          timer = setTimeout(() => flush(), backoffDelayMs(attempt - 1, { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS }));
          armAlarm(RETRY_ALARM, ALARM_PERIOD_MIN); // the background may be suspended before the timer fires
          return;
        }
        attempt = 0;
        await persist();
      }
    })().finally(() => { sending = null; });
    return sending;
  }

  /**
   * @param {ReturnType<typeof createQueue>} q @param {{id: string}[]} batch
   * @returns {Promise<boolean>} whether Origo acknowledged any of the batch (if not, it waits in the queue again)
   */
  async function post(q, batch) {
    const endpoint = origoUrl().then(logsEndpoint);
    try {
      const rejected = await postLogBatch({ fetch, endpoint, queue: q, batch, counters });
      for (const r of rejected) logger.warn(`[mutp] Origo rejected a record: ${r.reason.slice(0, 200)}`);
      return true;
    } catch (err) {
      if (attempt === 0) logger.warn(`[mutp] log upload to ${await endpoint.catch(() => 'Origo')} failed, will retry: ${/** @type {Error} */ (err)?.message}`);
      return false;
    }
  }

  return { add, flush, counters, pending: async () => (await load()).size };
}
