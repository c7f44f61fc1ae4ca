// A proxy's periodic `status` message over socket.io.
import * as c from './common.js';

/** CPU is a fraction of one core; a multi-threaded process can exceed 1, up to its core count. */
const MAX_CPU_CORES = 1024;

export const proxyStatusSchema = {
  $id: 'mutp:proxy-status',
  type: 'object',
  required: ['proxyId', 'publicUrl', 'activeSessions', 'bytesSent'],
  properties: {
    proxyId: c.proxyId,
    publicUrl: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://' },
    location: c.location,
    uploadRateBps: { type: ['number', 'null'], minimum: 0 },
    activeSessions: c.count,
    bytesSent: c.count,
    cpu: { type: ['number', 'null'], minimum: 0, maximum: MAX_CPU_CORES },
  },
};
