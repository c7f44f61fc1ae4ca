import { MAX_CLIENT_RECORDS_PER_POST, MAX_EXTRA_BYTES } from '../limits.js';
import { validateClientRecord } from '../schema/validators.js';
import { extraOf } from '../store/tables.js';
import { sendError } from './send-error.js';

/** Bytes `extra` would take (unknown top-level keys and params, as JSON). @param {object} record */
const extraBytes = (record) => {
  const extra = extraOf(record);
  return extra === null ? 0 : Buffer.byteLength(JSON.stringify(extra), 'utf8');
};

/**
 * POST /api/logs: a JSON array of client records. Valid records are stored even when others are
 * rejected; the status is 200 only when nothing was rejected. A record whose unknown fields pass
 * MAX_EXTRA_BYTES is rejected with code ERR_RECORD_TOO_LARGE; a request that would pass the address's
 * byte quota stores nothing and gets 429 ERR_QUOTA (the client retries later).
 * @param {{ store: import('../store/store-interface.js').Store, logger: import('@mutp/common/logger').Logger,
 *           events?: import('node:events').EventEmitter, quota?: ReturnType<typeof import('./address-quota.js').createAddressQuota> | null }} deps
 *   events: 'client-records' (ids stored) after each commit; quota: record bytes per client address per window
 * @returns {import('express').RequestHandler}
 */
export function logsRoute({ store, logger, events, quota = null }) {
  return async (req, res) => {
    const body = req.body;
    if (!req.is('application/json')) return sendError(res, 415, 'ERR_BAD_CONTENT_TYPE', 'send a JSON array with Content-Type: application/json');
    if (!Array.isArray(body)) return sendError(res, 400, 'ERR_BAD_BODY', 'the body must be a JSON array of client records');
    if (body.length > MAX_CLIENT_RECORDS_PER_POST) {
      return sendError(res, 413, 'ERR_TOO_MANY_RECORDS', `at most ${MAX_CLIENT_RECORDS_PER_POST} records per request`);
    }
    /** @type {{ index: number, id: string | null, code?: string, reason: string }[]} */
    const rejected = [];
    const valid = [];
    body.forEach((record, index) => {
      const verdict = validateClientRecord(record);
      const id = record && typeof record === 'object' && typeof record.id === 'string' ? record.id.slice(0, 64) : null;
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
