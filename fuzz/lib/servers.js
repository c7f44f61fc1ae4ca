// Real servers for the network-facing fuzz targets, on 127.0.0.1 with ephemeral ports.
import { randomBytes } from 'node:crypto';
import { startOrigo, proxyToken } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { issueTicket } from '@mutp/origo/client-ticket';
import { startDemoOrigin } from '@mutp/demo/origin';
import { codedError } from '@mutp/common/errors';

export const silent = { info() {}, warn() {}, error() {} };

/** Origo with an in-memory store, rate limit off (the fuzzer is one address sending fast). */
export async function startFuzzOrigo() {
  const secret = randomBytes(16).toString('hex');
  const origo = await startOrigo({ proxySecret: secret, host: '127.0.0.1', port: 0, db: ':memory:', logger: silent, rateLimitPerMinute: 0,
    ticketsPerMinute: 0, logBytesPerMinute: 0, proxyEventsPerSecond: 0 }); // the fuzzer is one address and one proxy socket sending as fast as it can
  return { origo, secret, token: (/** @type {string} */ id) => proxyToken(secret, id) };
}

/**
 * A proxy (HTTP /fetch and POST /rtc/offer) in front of the demo origin, in production config:
 * tickets required. `ticket()` is a valid one, which the corpora's TICKET placeholder becomes, so
 * mutants reach both the ticket parser (damaged placeholder) and the handlers behind it (intact).
 * The per-address rate limit is off: the fuzzer is one address sending fast, and 429s would hide the handlers.
 */
export async function startFuzzProxy() {
  const origin = await startDemoOrigin({ host: '127.0.0.1', port: 0 });
  const secret = randomBytes(16).toString('hex');
  const id = 'fuzz-proxy';
  const proxy = await startProxy({ id, token: proxyToken(secret, id), requireTickets: true, rateLimitPerMinute: 0, host: '127.0.0.1', port: 0, origoUrl: null,
    allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, logger: silent });
  const ticket = () => issueTicket({ secret, clientId: 'fuzz-client', proxyId: id, now: Date.now() }).ticket;
  return { origin, proxy, ticket, async close() { await proxy.close(); await origin.close(); } };
}

/** Gateway answers a proxy may legitimately give for a well-formed request whose origin failed. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * The verdict on one answer to junk: a 4xx (or a success) is fine; a gateway 5xx must carry a
 * machine-readable code; anything else 5xx, or no answer at all, is a defect.
 * @param {{status: number, body: Buffer, headers: string}} r @param {string} what
 */
export function checkAnswer(r, what) {
  if (r.status === 0) throw codedError('ERR_FUZZ_NO_ANSWER', `${what}: connection closed without an HTTP answer`);
  if (r.status < 500) return;
  let code = null;
  try { code = JSON.parse(r.body.toString('utf8'))?.error?.code ?? null; } catch { /* judged below */ }
  if (!GATEWAY_STATUSES.has(r.status) || typeof code !== 'string') {
    throw codedError('ERR_FUZZ_5XX', `${what}: HTTP ${r.status} ${r.body.subarray(0, 200).toString('utf8')}`);
  }
}
