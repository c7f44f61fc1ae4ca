import { MAX_PROXIES_PER_DOWNLOAD } from '../limits.js';

/** A plain decimal number: no hex, exponents, Infinity or whitespace slip through Number(). */
const DECIMAL = /^-?\d{1,3}(\.\d{1,15})?$/;
const COUNT = /^\d{1,4}$/;

/**
 * Parses `GET /api/proxies?lat=&lon=&n=` at the edge.
 * @param {Record<string, unknown>} query  Express's parsed query (a repeated key is an array)
 * @returns {{ ok: boolean, message?: string, location?: { lat: number, lon: number } | null, n?: number | null }}  (message set when ok is false)
 */
export function parseProxiesQuery(query) {
  for (const key of ['lat', 'lon', 'n']) {
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
    if (!COUNT.test(n) || Number(n) < 1 || Number(n) > MAX_PROXIES_PER_DOWNLOAD) {
      return { ok: false, message: `n must be an integer in [1, ${MAX_PROXIES_PER_DOWNLOAD}]` };
    }
    count = Number(n);
  }
  return { ok: true, location, n: count };
}
