// Origo's client API: the proxy list. The answer is checked at the edge; malformed entries are
// dropped with a warning, never trusted.
import { codedError } from '@mutp/common/errors';
import { jsonCapped } from './capped-body.js';
import { MAX_ORIGO_ANSWER_BYTES } from './limits.js';

const PROXY_LIST_TIMEOUT_MS = 10_000; // Origo is the entry point; a hung Origo fails the download clearly
const MAX_ID_CHARS = 128; // proxy ids are short names; anything longer is malformed
/** A ticket is opaque to the client; this only refuses junk (Origo's are ~300 characters; the proxy caps them at 1,024). */
const TICKET_PATTERN = /^[A-Za-z0-9._-]{1,1024}$/;

/**
 * @typedef {object} ProxyEntry
 * @property {string} id
 * @property {string} url
 * @property {{lat: number, lon: number} | null} location
 * @property {number | null} uploadRateBps
 * @property {number | null} activeSessions
 * @property {string | null} ticket     Origo's signed permission to use this proxy (null: Origo sent none)
 */

/**
 * @param {object} o
 * @param {string} o.origo
 * @param {typeof fetch} o.fetch
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 * @param {number} [o.n]
 * @param {number} [o.lat]
 * @param {number} [o.lon]
 * @param {AbortSignal} [o.signal]
 * @param {string} [o.clientId]   binds the tickets Origo issues to this client
 * @returns {Promise<ProxyEntry[]>}
 */
export async function fetchProxyList({ origo, fetch, logger, n, lat, lon, signal, clientId }) {
  const u = new URL('/api/proxies', origo);
  if (n != null) u.searchParams.set('n', String(n));
  if (clientId != null) u.searchParams.set('clientId', clientId);
  if (lat != null && lon != null) {
    u.searchParams.set('lat', String(lat));
    u.searchParams.set('lon', String(lon));
  }
  const body = await getJson(u, { origo, fetch, signal });
  if (!body || !Array.isArray(body.proxies)) throw codedError('ERR_ORIGO_BAD_RESPONSE', 'Origo answer has no proxies list');
  /** @type {ProxyEntry[]} */
  const out = [];
  for (const p of body.proxies) {
    const entry = parseProxyEntry(p);
    if (entry) out.push(entry);
    else logger.warn(`origo: ignoring a malformed proxy entry: ${JSON.stringify(p)?.slice(0, 200)}`);
  }
  return out;
}

/**
 * Fresh tickets for proxies the caller already chose (GET /api/tickets). Origo leaves out ids it does not know.
 * @param {{ origo: string, fetch: typeof fetch, logger: {warn: (...a: unknown[]) => void}, ids: string[], clientId: string, signal?: AbortSignal }} o
 * @returns {Promise<Map<string, string>>}  proxy id → ticket
 */
export async function fetchTickets({ origo, fetch, logger, ids, clientId, signal }) {
  const u = new URL('/api/tickets', origo);
  u.searchParams.set('clientId', clientId);
  u.searchParams.set('ids', ids.join(','));
  const body = await getJson(u, { origo, fetch, signal });
  if (!body || !Array.isArray(body.tickets)) throw codedError('ERR_ORIGO_BAD_RESPONSE', 'Origo answer has no tickets list');
  const out = new Map();
  for (const t of body.tickets) {
    if (t && typeof t.proxyId === 'string' && ids.includes(t.proxyId) && typeof t.ticket === 'string' && TICKET_PATTERN.test(t.ticket)) out.set(t.proxyId, t.ticket);
    else logger.warn(`origo: ignoring a malformed ticket entry: ${JSON.stringify(t)?.slice(0, 200)}`);
  }
  return out;
}

/**
 * GET an Origo API URL; Origo's error body becomes a coded error.
 * @param {URL} u @param {{ origo: string, fetch: typeof fetch, signal?: AbortSignal }} o
 */
async function getJson(u, { origo, fetch, signal }) {
  const timeout = AbortSignal.timeout(PROXY_LIST_TIMEOUT_MS);
  let res;
  try {
    res = await fetch(u, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
  } catch (err) {
    const detail = /** @type {{cause?: {code?: string}, message?: string}} */ (err);
    throw codedError('ERR_ORIGO_UNREACHABLE', `cannot reach Origo at ${origo} (${detail?.cause?.code ?? detail?.message})`);
  }
  let body;
  try {
    body = /** @type {any} */ (await jsonCapped(res, MAX_ORIGO_ANSWER_BYTES, { code: 'ERR_ORIGO_BAD_RESPONSE', what: 'Origo\'s answer' }));
  } catch (err) {
    if (/** @type {{code?: string}} */ (err)?.code === 'ERR_ORIGO_BAD_RESPONSE') throw err; // longer than any answer of Origo's
    throw codedError('ERR_ORIGO_BAD_RESPONSE', `Origo answered HTTP ${res.status} without JSON`);
  }
  if (!res.ok) {
    const e = body?.error;
    throw codedError(typeof e?.code === 'string' ? e.code : 'ERR_ORIGO_STATUS', `Origo: ${typeof e?.message === 'string' ? e.message : `HTTP ${res.status}`}`);
  }
  return body;
}

/**
 * @param {unknown} p
 * @returns {ProxyEntry | null}
 */
export function parseProxyEntry(p) {
  if (!p || typeof p !== 'object') return null;
  const o = /** @type {Record<string, any>} */ (p);
  if (typeof o.id !== 'string' || o.id.length === 0 || o.id.length > MAX_ID_CHARS) return null;
  if (typeof o.url !== 'string') return null;
  let u;
  try {
    u = new URL(o.url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const loc = o.location;
  const location = loc && Number.isFinite(loc.lat) && Number.isFinite(loc.lon) && Math.abs(loc.lat) <= 90 && Math.abs(loc.lon) <= 180
    ? { lat: loc.lat, lon: loc.lon } : null;
  const num = (v) => (Number.isFinite(v) && v >= 0 ? v : null);
  const ticket = typeof o.ticket === 'string' && TICKET_PATTERN.test(o.ticket) ? o.ticket : null;
  return { id: o.id, url: o.url, location, uploadRateBps: num(o.uploadRateBps), activeSessions: num(o.activeSessions), ticket };
}
