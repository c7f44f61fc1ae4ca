// One batch of client log records to Origo, with Origo's ack applied to the queue it came from
// (@mutp/common/log-queue): `POST /api/logs/v2`, the packet logs in columns, or `/api/logs` for an
// Origo that predates it. ProxyClientLib's sender (records in memory) and the extension's
// background (records kept in extension storage) both ship records this way; each keeps its own
// retry pace.
import { packetLogColumns } from '@mutp/protocol/packet-log-columns';
import { jsonCapped } from './capped-body.js';
import { MAX_ORIGO_ANSWER_BYTES } from './limits.js';
import { logBody } from '#log-body';

/** One POST carries at most this many records: with ~100 KB packet logs each, far below Origo's 8 MiB body cap. */
export const LOG_BATCH_MAX_RECORDS = 20;

/** A hung Origo must not block the queue forever (ms). */
const LOG_POST_TIMEOUT_MS = 10_000;

/** @param {string} origo  Origo's base URL @returns {string} where records are posted */
export function logsEndpoint(origo) {
  return new URL('/api/logs', origo).href;
}

/**
 * Endpoints whose Origo answered 404 to /v2 (it predates packet logs in columns): their records
 * go to the endpoint itself, as arrays, for the rest of this context's life.
 * @type {Set<string>}
 */
const arraysOnly = new Set();

/**
 * The batch as POST /api/logs/v2 takes it: each packet log in columns (packet-log-columns.js), where
 * they say it exactly. The records themselves are left as they are.
 * @param {{id: string}[]} batch
 */
function inColumns(batch) {
  return batch.map((r) => {
    const log = /** @type {{packetLog?: unknown}} */ (r).packetLog;
    const columns = Array.isArray(log) ? packetLogColumns(/** @type {any} */ (log)) : null;
    if (!columns) return r;
    const { packetLog: _, ...rest } = /** @type {any} */ (r);
    return { ...rest, packetLogColumns: columns };
  });
}

/**
 * @param {object} o
 * @param {typeof fetch} o.fetch
 * @param {string | Promise<string>} o.endpoint  logsEndpoint() (a promise: the extension reads Origo's URL from its settings)
 * @param {ReturnType<typeof import('@mutp/common/log-queue').createLogQueue>} o.queue
 * @param {{id: string}[]} o.batch  from queue.takeBatch()
 * @param {{ stored: number, duplicates: number, rejected: number }} o.counters  the ack's counts are added here
 * @returns {Promise<{ id: string, reason: string }[]>} the records Origo rejected (they leave the
 *   queue: sending them again can never succeed; the caller logs why). Rejects on a failed POST,
 *   an answer that is not an ack, or an ack of none of the batch; the batch is then released to
 *   the queue, to be sent again.
 */
export async function postLogBatch({ fetch, endpoint, queue, batch, counters }) {
  const ids = batch.map((r) => r.id);
  try {
    const url = await endpoint;
    /** @param {string} to @param {{id: string}[]} records */
    const post = async (to, records) => {
      const { body: payload, headers } = await logBody(JSON.stringify(records));
      return fetch(to, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(LOG_POST_TIMEOUT_MS) });
    };
    let res = null;
    if (!arraysOnly.has(url)) {
      res = await post(`${url}/v2`, inColumns(batch));
      if (res.status === 404) {
        await res.body?.cancel();
        arraysOnly.add(url);
        res = null;
      }
    }
    res ??= await post(url, batch);
    if (res.status !== 200 && res.status !== 400) throw new Error(`Origo answered HTTP ${res.status}`);
    const body = await jsonCapped(res, MAX_ORIGO_ANSWER_BYTES, { what: 'Origo\'s ack' });
    if (!isAck(body)) throw new Error('Origo answered with an unexpected body');
    const acked = queue.ack(ids, body);
    if (acked.acked === 0) throw new Error('Origo acknowledged none of the batch');
    counters.stored += acked.stored;
    counters.duplicates += acked.duplicates;
    counters.rejected += acked.rejected.length;
    return acked.rejected;
  } catch (err) {
    queue.release(ids);
    throw err;
  }
}

/**
 * One batch to Origo by beacon (a page's navigator.sendBeacon), begun before this returns: a page
 * that goes away reaches Origo this way in every browser, where Firefox now and then loses a
 * keepalive fetch begun as its tab closes. The body is a string, so it goes as text/plain, which
 * needs no CORS preflight; Origo reads it as JSON. Its answer cannot be read, so the caller keeps
 * the records queued (Origo takes one again as a duplicate).
 * @param {{ sendBeacon: (url: string, body: string) => boolean, endpoint: string, batch: {id: string}[] }} o
 *   endpoint: logsEndpoint()
 * @returns {boolean} whether the browser took it
 */
export function beaconLogBatch({ sendBeacon, endpoint, batch }) {
  const v2 = !arraysOnly.has(endpoint);
  try {
    return sendBeacon(v2 ? `${endpoint}/v2` : endpoint, JSON.stringify(v2 ? inColumns(batch) : batch)) === true;
  } catch {
    return false; // a browser may throw where it would refuse (a closed document, a quota)
  }
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
