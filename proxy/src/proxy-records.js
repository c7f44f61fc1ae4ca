import { randomUUID } from 'node:crypto';

// Origo's limits on a record's error (origo/src/limits.js); longer text would get it rejected.
const MAX_ERROR_CODE_CHARS = 64;
const MAX_ERROR_MESSAGE_CHARS = 2048;

// Every field of a proxy record (docs/origo-api.md); missing ones are sent as null.
const RECORD_FIELDS = ['id', 'proxyId', 'downloadId', 'startedAt', 'mode', 'url', 'objectBytes', 'sourceIndex', 'n',
  'params', 'packetsSent', 'bytesSent', 'durationMs', 'serverFetchMs', 'fromCache', 'firstSendMs', 'inflightHeldMs', 'error'];

/**
 * `logs` for the HTTP route and the RTC code: `record(r)` completes a proxy record (id,
 * proxyId, startedAt) and queues it for Origo.
 * @param {{ proxyId: string, queue: ReturnType<typeof import('./origo/log-queue.js').createLogQueue>,
 *           onRecord?: () => void }} opts
 */
export function createProxyLogs({ proxyId, queue, onRecord }) {
  return {
    /** @param {Record<string, any>} partial */
    record(partial) {
      /** @type {Record<string, any>} */
      const rec = {};
      for (const f of RECORD_FIELDS) rec[f] = partial[f] ?? null;
      rec.id = typeof partial.id === 'string' && partial.id !== '' ? partial.id : randomUUID();
      rec.proxyId = proxyId;
      rec.startedAt ??= new Date().toISOString();
      rec.fromCache = partial.fromCache === true;
      if (rec.error) rec.error = { code: String(rec.error.code ?? 'ERR_INTERNAL').slice(0, MAX_ERROR_CODE_CHARS),
        message: rec.error.message == null ? null : String(rec.error.message).slice(0, MAX_ERROR_MESSAGE_CHARS) };
      queue.push(/** @type {any} */ (rec));
      onRecord?.();
      return rec;
    },
  };
}
