import { packetLogFromColumns } from '@mutp/protocol/packet-log-columns';
import { MAX_CLIENT_RECORDS_PER_POST, MAX_EXTRA_BYTES, MAX_PACKET_LOG_ENTRIES } from '../limits.js';
import { validateClientRecord } from '../schema/validators.js';
import { extraOf } from '../store/tables.js';
import { sendError } from './send-error.js';

/** Bytes `extra` would take (unknown top-level keys and params, as JSON). @param {object} record */
const extraBytes = (record) => {
  const extra = extraOf(record);
  return extra === null ? 0 : Buffer.byteLength(JSON.stringify(extra), 'utf8');
};

/**
 * A v2 record's packet log back in the form v1 and the store have (`packetLogColumns` read into
 * `packetLog`), in place; the reason it cannot be, or null.
 * @param {any} record
 * @returns {string | null}
 */
function readColumns(record) {
  if (!record || typeof record !== 'object' || !('packetLogColumns' in record)) return null;
  if (record.packetLog != null) return 'packetLog and packetLogColumns: send one';
  try {
    record.packetLog = packetLogFromColumns(record.packetLogColumns, MAX_PACKET_LOG_ENTRIES);
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
  delete record.packetLogColumns;
  return null;
}

/**
 * The body types the log routes read as JSON. text/plain: a page that goes away sends its last
 * records by navigator.sendBeacon, whose string body is text/plain, a type that needs no CORS
 * preflight (the route takes any origin's records, as it takes any client's).
 */
export const LOGS_CONTENT_TYPES = ['application/json', 'text/plain'];

/**
 * POST /api/logs: a JSON array of client records. Valid records are stored even when others are
 * rejected; the status is 200 only when nothing was rejected. A record whose unknown fields pass
 * MAX_EXTRA_BYTES is rejected with code ERR_RECORD_TOO_LARGE; a request that would pass the address's
 * byte quota stores nothing and gets 429 ERR_QUOTA (the client retries later).
 * POST /api/logs/v2 (`columns`): the same, where a record may carry its packet log as
 * `packetLogColumns` (@mutp/protocol/packet-log-columns); it is read back into `packetLog` before
 * the record is checked, so what is stored is the same. docs/origo-api.md.
 * @param {{ store: import('../store/store-interface.js').Store, logger: import('@mutp/common/logger').Logger,
 *           events?: import('node:events').EventEmitter, quota?: ReturnType<typeof import('./address-quota.js').createAddressQuota> | null,
 *           columns?: boolean }} deps
 *   events: 'client-records' (ids stored) after each commit; quota: record bytes per client address per window
 * @returns {import('express').RequestHandler}
 */
export function logsRoute({ store, logger, events, quota = null, columns = false }) {
  return async (req, res) => {
    const body = req.body;
    if (!req.is(LOGS_CONTENT_TYPES)) return sendError(res, 415, 'ERR_BAD_CONTENT_TYPE', 'send a JSON array with Content-Type: application/json (or text/plain, as a page\'s beacon does)');
    if (!Array.isArray(body)) return sendError(res, 400, 'ERR_BAD_BODY', 'the body must be a JSON array of client records');
    if (body.length > MAX_CLIENT_RECORDS_PER_POST) {
      return sendError(res, 413, 'ERR_TOO_MANY_RECORDS', `at most ${MAX_CLIENT_RECORDS_PER_POST} records per request`);
    }
    /** @type {{ index: number, id: string | null, code?: string, reason: string }[]} */
    const rejected = [];
    const valid = [];
    body.forEach((record, index) => {
      const id = record && typeof record === 'object' && typeof record.id === 'string' ? record.id.slice(0, 64) : null;
      const unread = columns ? readColumns(record) : null;
      if (unread) return rejected.push({ index, id, reason: unread });
      const verdict = validateClientRecord(record);
      if (!verdict.ok) return rejected.push({ index, id, reason: verdict.reason });
      const extra = extraBytes(record);
      if (extra > MAX_EXTRA_BYTES) return rejected.push({ index, id, code: 'ERR_RECORD_TOO_LARGE', reason: `unknown fields take ${extra} bytes; at most ${MAX_EXTRA_BYTES}` });
      valid.push(record);
    });
    if (quota && valid.length) {
      const bytes = Buffer.byteLength(JSON.stringify(valid), 'utf8');
      if (!quota.take(String(req.ip), bytes)) {
        logger.warn('client records refused: quota', { address: req.ip, bytes, count: valid.length });
        return sendError(res, 429, 'ERR_QUOTA', 'this address stored too many record bytes this minute; retry later');
      }
    }
    let result;
    try {
      result = await store.insertClientRecords(valid);
    } catch (err) {
      logger.error('client records not stored', { code: err.code, message: err.message, count: valid.length });
      return sendError(res, 503, 'ERR_STORE_UNAVAILABLE', 'the log store could not commit; retry later');
    }
    if (result.stored.length) events?.emit('client-records', result.stored);
    if (rejected.length) logger.warn('client records rejected', { address: req.ip, count: rejected.length, first: rejected[0].reason });
    res.status(rejected.length ? 400 : 200).json({ ...result, rejected });
  };
}
