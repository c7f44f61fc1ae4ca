import { MAX_PROXIES_LISTED } from '../limits.js';

/** A plain decimal number: no hex, exponents, Infinity or whitespace slip through Number(). */
const DECIMAL = /^-?\d{1,3}(\.\d{1,15})?$/;
const COUNT = /^\d{1,4}$/;
/** Origo's id rule (ids end up in tickets and logs): 1..128 of [A-Za-z0-9._:-]. */
const ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Client id used when a client names none: its tickets are then bound to no particular installation. */
export const ANONYMOUS_CLIENT_ID = 'anonymous';

/**
 * Parses `GET /api/proxies?lat=&lon=&n=` at the edge.
 * @param {Record<string, unknown>} query  Express's parsed query (a repeated key is an array)
 * @returns {{ ok: boolean, message?: string, location?: { lat: number, lon: number } | null, n?: number | null, clientId?: string }}  (message set when ok is false)
 */
export function parseProxiesQuery(query) {
  for (const key of ['lat', 'lon', 'n', 'clientId']) {
    if (query[key] !== undefined && typeof query[key] !== 'string') return { ok: false, message: `${key} must be given once` };
  }
  const { lat, lon, n } = /** @type {Record<string, string | undefined>} */ (query);
  let location = null;
  if (lat !== undefined || lon !== undefined) {
    if (lat === undefined || lon === undefined) return { ok: false, message: 'lat and lon must be given together' };
    if (!DECIMAL.test(lat) || Math.abs(Number(lat)) > 90) return { ok: false, message: 'lat must be a number in [-90, 90]' };
    if (!DECIMAL.test(lon) || Math.abs(Number(lon)) > 180) return { ok: false, message: 'lon must be a number in [-180, 180]' };
    location = { lat: Number(lat), lon: Number(lon) };
  }
  let count = null;
  if (n !== undefined) {
    if (!COUNT.test(n) || Number(n) < 1 || Number(n) > MAX_PROXIES_LISTED) {
      return { ok: false, message: `n must be an integer in [1, ${MAX_PROXIES_LISTED}]` };
    }
    count = Number(n);
  }
  const clientId = parseClientId(query.clientId);
  if (clientId === null) return { ok: false, message: 'clientId must be 1..128 of [A-Za-z0-9._:-]' };
  return { ok: true, location, n: count, clientId };
}

/**
 * @param {unknown} value  the clientId query value (absent = anonymous)
 * @returns {string | null}  null when malformed
 */
export function parseClientId(value) {
  if (value === undefined) return ANONYMOUS_CLIENT_ID;
  return typeof value === 'string' && ID.test(value) ? value : null;
}

/**
 * Parses `GET /api/tickets?clientId=&ids=a,b`: tickets for proxies the client already chose.
 * @param {Record<string, unknown>} query
 * @returns {{ ok: boolean, message?: string, clientId?: string, ids?: string[] }}  (message set when ok is false)
 */
export function parseTicketsQuery(query) {
  for (const key of ['ids', 'clientId']) {
    if (query[key] !== undefined && typeof query[key] !== 'string') return { ok: false, message: `${key} must be given once` };
  }
  const clientId = parseClientId(query.clientId);
  if (clientId === null) return { ok: false, message: 'clientId must be 1..128 of [A-Za-z0-9._:-]' };
  if (typeof query.ids !== 'string' || query.ids === '') return { ok: false, message: 'ids (comma-separated proxy ids) is required' };
  const ids = [...new Set(query.ids.split(','))];
  if (ids.length > MAX_PROXIES_LISTED) return { ok: false, message: `at most ${MAX_PROXIES_LISTED} ids` };
  if (!ids.every((id) => ID.test(id))) return { ok: false, message: 'each id must be 1..128 of [A-Za-z0-9._:-]' };
  return { ok: true, clientId, ids };
}
