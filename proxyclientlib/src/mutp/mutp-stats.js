// The MUTP download's log record (docs/log-record.md), built by the shared record builder so
// every mode reports the same fields (derived rates included).
import { buildRecord } from '../stats-record.js';

/**
 * @param {Omit<import('../stats-record.js').RecordInput, 'clientId'> & { clientId: string | null }} r
 *   clientId null: a fresh random one (this download is not tied to an installation)
 */
export function buildMutpStats(r) {
  return buildRecord({ ...r, clientId: r.clientId ?? globalThis.crypto.randomUUID() });
}
