// The one definition of a proxy's per-download record, sent over socket.io `logs` (docs/log-record.md).
import * as c from './common.js';
import { MAX_PROXIES_PER_DOWNLOAD } from '../limits.js';

export const proxyRecordSchema = {
  $id: 'mutp:proxy-record',
  type: 'object',
  required: ['id', 'proxyId', 'startedAt', 'mode', 'url', 'packetsSent', 'bytesSent', 'durationMs'],
  properties: {
    id: c.uuid,
    proxyId: c.proxyId,
    downloadId: { type: ['string', 'null'], minLength: 1, maxLength: c.shortId.maxLength },
    startedAt: c.isoTime,
    mode: { enum: c.PROXY_MODES },
    url: c.url,
    objectBytes: c.countOrNull,
    sourceIndex: { type: ['integer', 'null'], minimum: 0, maximum: MAX_PROXIES_PER_DOWNLOAD - 1 },
    n: { type: ['integer', 'null'], minimum: 1, maximum: MAX_PROXIES_PER_DOWNLOAD },
    params: c.params,
    packetsSent: c.count,
    bytesSent: c.count,
    durationMs: c.durationMs,
    serverFetchMs: c.durationMsOrNull,
    fromCache: { type: ['boolean', 'null'] },
    firstSendMs: c.durationMsOrNull,
    inflightHeldMs: c.durationMsOrNull,
    error: c.errorOrNull,
  },
};

export const PROXY_RECORD_KEYS = Object.keys(proxyRecordSchema.properties);
