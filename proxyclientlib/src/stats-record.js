// Builds the client log record of docs/log-record.md (one per download, posted to Origo).
import { computeTimeBreakdown, deriveRates, median } from '@mutp/protocol/metrics';
import { MAX_URL_CHARS } from './limits.js';

// Query parameters that carry credentials or client identity; their values never leave the client.
const SECRET_QUERY_PARAMS = new Set(['sig', 'signature', 'lsig', 'key', 'token', 'access_token', 'auth', 'ip', 'ipbits', 'password', 'secret']);

/**
 * The URL as logged: secret query values replaced by "REDACTED", cut to Origo's MAX_URL_CHARS (cut rather than rejected).
 * @param {string} url
 */
export function redactUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return url.slice(0, MAX_URL_CHARS);
  }
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) {
    if (SECRET_QUERY_PARAMS.has(k.toLowerCase())) u.searchParams.set(k, 'REDACTED');
  }
  return u.toString().slice(0, MAX_URL_CHARS);
}

/**
 * @typedef {object} RecordInput
 * @property {string} [id]          record id (UUID); also sent to proxies as downloadId
 * @property {string} clientId
 * @property {string} startedAt      ISO 8601
 * @property {'parallel-http'|'uncoded'|'coded'|'range-http'} mode
 * @property {{id: string, uploadRateBps?: number | null}[]} proxies  in source-index order; uploadRateBps: the rate
 *   Origo listed for the proxy (bytes/s), copied into each perProxy entry (Origo's rate_mix is built from it)
 * @property {number} [n]            N when no proxy was reached (default: proxies.length)
 * @property {string} url
 * @property {number} objectBytes
 * @property {{window?: number|null, generationSize?: number|null, feedbackEvery?: number|null, payloadSize?: number|null, surplus?: number|null}} [params]
 * @property {number} grossBytes
 * @property {number} netBytes
 * @property {number} durationMs
 * @property {number | null} [firstPacketMs]
 * @property {number | null} [connectMs]  the start → the first request sent (the connections' set-up; null: not known)
 * @property {number[]} [serverFetchMs]   per proxy that reported it
 * @property {number | null} [lookupMs]  the proxy lookup's start (download() called, or an earlier listing's) → proxies and tickets in hand (before the record's clock)
 * @property {{answerMs?: number | null, originMs?: number | null, prepareMs?: number | null, decidedMs?: number | null} | null} [requestSteps]
 *   the steps before the first byte (docs/log-record.md)
 * @property {number} [packets]
 * @property {number} [duplicates]
 * @property {number | null} [lossEstimate]
 * @property {{proxyId: string, bytes: number, packets: number, duplicates: number, error: {code: string, message: string} | null}[]} [perProxy]
 * @property {Array<[number, number, number, number]> | null} [packetLog]
 * @property {number[] | null} [feedbackLog]
 * @property {boolean | null} [verified]  every delivered block (HTTP modes) or unit (MUTP modes) matched a digest or checksum
 *   two or more proxies agreed on
 * @property {{code: string, message: string} | null} [error]
 */

/** @param {number | null | undefined} v */
const msOrNull = (v) => (typeof v === 'number' && Number.isFinite(v) ? round3(Math.max(0, v)) : null);

/**
 * The record's requestSteps: null when nothing of it is known.
 * @param {RecordInput} r
 */
function requestStepsOf(r) {
  const s = r.requestSteps ?? {};
  const steps = {
    lookupMs: msOrNull(r.lookupMs), answerMs: msOrNull(s.answerMs), originMs: msOrNull(s.originMs),
    prepareMs: msOrNull(s.prepareMs), decidedMs: msOrNull(s.decidedMs),
  };
  return Object.values(steps).some((v) => v !== null) ? steps : null;
}

/**
 * @param {RecordInput} r
 */
export function buildRecord(r) {
  const durationMs = round3(Math.max(0, r.durationMs));
  const rates = deriveRates({ grossBytes: r.grossBytes, netBytes: r.netBytes, durationMs });
  const sf = (r.serverFetchMs ?? []).filter((v) => Number.isFinite(v));
  const p = r.params ?? {};
  const record = {
    id: r.id ?? globalThis.crypto.randomUUID(),
    clientId: r.clientId,
    startedAt: r.startedAt,
    mode: r.mode,
    n: r.n ?? r.proxies.length,
    proxyIds: r.proxies.map((x) => x.id),
    url: redactUrl(r.url),
    objectBytes: r.objectBytes,
    params: {
      window: p.window ?? null,
      generationSize: p.generationSize ?? null,
      feedbackEvery: p.feedbackEvery ?? null,
      payloadSize: p.payloadSize ?? null,
      surplus: p.surplus ?? null,
    },
    grossBytes: r.grossBytes,
    netBytes: r.netBytes,
    durationMs,
    firstPacketMs: r.firstPacketMs == null ? null : round3(r.firstPacketMs),
    connectMs: r.connectMs == null ? null : round3(Math.max(0, r.connectMs)),
    serverFetchMs: sf.length ? round3(median(sf)) : null,
    requestSteps: requestStepsOf(r),
    packets: r.packets ?? 0,
    duplicates: r.duplicates ?? 0,
    lossEstimate: r.lossEstimate ?? null,
    perProxy: withRates(r.perProxy ?? r.proxies.map((x) => ({ proxyId: x.id, bytes: 0, packets: 0, duplicates: 0, error: null })), r.proxies),
    packetLog: r.packetLog ?? null,
    feedbackLog: r.feedbackLog ?? null,
    verified: r.verified ?? null,
    error: r.error ?? null,
    throughputBps: round3(rates.throughputBps),
    goodputBps: round3(rates.goodputBps),
    normalizedGoodput: round6(rates.normalizedGoodput),
  };
  // the proxies' in-flight holds are in their own records, not known here: those parts stay in stallMs
  return { ...record, timeBreakdown: computeTimeBreakdown(record) };
}

/**
 * Each perProxy entry with its proxy's advertised rate (bytes/s; null when Origo did not list one).
 * Entries are in source-index order; a source that moved to a spare names the spare, so the id decides.
 * @template {{proxyId: string}} T
 * @param {T[]} perProxy @param {{id: string, uploadRateBps?: number | null}[]} proxies
 * @returns {(T & {uploadRateBps: number | null})[]}
 */
function withRates(perProxy, proxies) {
  const rateOf = (/** @type {{id: string, uploadRateBps?: number | null} | undefined} */ x) =>
    (typeof x?.uploadRateBps === 'number' && Number.isFinite(x.uploadRateBps) && x.uploadRateBps >= 0 ? x.uploadRateBps : null);
  return perProxy.map((p, i) => ({ ...p, uploadRateBps: rateOf(proxies[i]?.id === p.proxyId ? proxies[i] : proxies.find((x) => x.id === p.proxyId)) }));
}

/** @param {number} v */
const round3 = (v) => Math.round(v * 1000) / 1000;
/** @param {number} v */
const round6 = (v) => Math.round(v * 1e6) / 1e6;
