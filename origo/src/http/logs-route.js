import { MAX_CLIENT_RECORDS_PER_POST } from '../limits.js';
import { validateClientRecord } from '../schema/validators.js';
import { sendError } from './send-error.js';

/**
 * POST /api/logs: a JSON array of client records. Valid records are stored even when others are
 * rejected; the status is 200 only when nothing was rejected.
 * @param {{ store: import('../store/store-interface.js').Store, logger: import('../logger.js').Logger,
 *           events?: import('node:events').EventEmitter }} deps  events: 'client-records' (ids stored) after each commit
 * @returns {import('express').RequestHandler}
 */
export function logsRoute({ store, logger, events }) {
  return async (req, res) => {
    const body = req.body;
    if (!req.is('application/json')) return sendError(res, 415, 'ERR_BAD_CONTENT_TYPE', 'send a JSON array with Content-Type: application/json');
    if (!Array.isArray(body)) return sendError(res, 400, 'ERR_BAD_BODY', 'the body must be a JSON array of client records');
    if (body.length > MAX_CLIENT_RECORDS_PER_POST) {
      return sendError(res, 413, 'ERR_TOO_MANY_RECORDS', `at most ${MAX_CLIENT_RECORDS_PER_POST} records per request`);
    }
    /** @type {{ index: number, id: string | null, reason: string }[]} */
    const rejected = [];
    const valid = [];
    body.forEach((record, index) => {
      const verdict = validateClientRecord(record);
      if (verdict.ok) return valid.push(record);
      const id = record && typeof record === 'object' && typeof record.id === 'string' ? record.id.slice(0, 64) : null;
      rejected.push({ index, id, reason: verdict.reason });
    });
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
