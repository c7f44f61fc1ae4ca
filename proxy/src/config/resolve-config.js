import { randomBytes } from 'node:crypto';
import { codedError } from '@mutp/common/errors';
import { origoUrlList } from '../origo/origo-urls.js';
import { DEFAULT_ALLOWED_HOSTS, parseHostPattern } from '../ssrf/host-allowlist.js';
import { pickTlsFiles } from '@mutp/tls';
import { parseByteSize, parseRate } from '@mutp/common/units';
import { DEFAULT_MAX_HTTP_FETCHES, DEFAULT_MAX_ORIGIN_FETCHES, DEFAULT_RATE_LIMIT_PER_MINUTE } from '../limits.js';
import { DEFAULT_MAX_SESSIONS } from '../rtc/limits.js';
import { parseRtcPorts } from '../rtc/ports.js';
import { ORIGIN_FETCH_TIMEOUT_MS } from '@mutp/protocol/constants';

export const DEFAULT_HOST = '127.0.0.1';
// Enough for several 1.5–5 MB video chunks per client without growing unbounded.
export const DEFAULT_CACHE_BYTES = 256 * 1024 ** 2;
// A video chunk is a few MB; 64 MiB stops a proxy from being used to pull huge files.
export const DEFAULT_MAX_OBJECT_BYTES = 64 * 1024 ** 2;
// The whole origin fetch, all redirect hops included: the clients wait as long for an answer's head.
export const DEFAULT_ORIGIN_TIMEOUT_MS = ORIGIN_FETCH_TIMEOUT_MS;
const BAD_CONFIG = { code: 'ERR_BAD_CONFIG' }; // what a bad size or rate in the configuration throws
// Origo's proxy id rule (docs/origo-api.md): 1..128 of [A-Za-z0-9._:-].
const MAX_ID_CHARS = 128;

/**
 * @typedef {object} ProxyConfig
 * @property {string} id
 * @property {string | null} token HMAC-SHA256(ORIGO_PROXY_SECRET, id), hex
 * @property {string} host listen address
 * @property {number} port 0 = any free port
 * @property {string | null} publicUrl null = http(s)://host:port once listening
 * @property {{ certFile: string, keyFile: string } | null} tls  HTTPS certificate chain and key files (null: plain HTTP)
 * @property {{ lat: number, lon: number } | null} location
 * @property {number | null} uploadRateBps reported to Origo (clients size their windows by it), and the ceiling of the MUTP sessions' pacing
 * @property {number} cacheBytes
 * @property {number} maxObjectBytes
 * @property {number} originTimeoutMs
 * @property {string[]} allowedHosts full allowlist (defaults + extra)
 * @property {boolean} allowPrivate tests only: allow loopback/private origins
 * @property {string | null} origoUrl null = run without Origo
 * @property {number | undefined} statusEveryMs
 * @property {boolean} requireTickets  POST /rtc/offer and GET /fetch need an Origo ticket (needs token)
 * @property {number} maxSessions      concurrent WebRTC sessions; more → 503 ERR_PROXY_BUSY
 * @property {number} maxHttpFetches   concurrent GET /fetch responses; more → 503 ERR_PROXY_BUSY
 * @property {number} maxOriginFetches concurrent origin downloads; more → 503 ERR_PROXY_BUSY
 * @property {number} rateLimitPerMinute  /fetch and /rtc/offer requests per minute per client address; 0 = off
 * @property {string | undefined} rtcBindAddress  address WebRTC binds to (default: loopback when host is)
 * @property {import('../rtc/ports.js').RtcPorts | null} rtcPorts  UDP ports WebRTC uses: one shared by every peer, or a
 *   range (a port per peer connection, and at most that many at once); null: an ephemeral port per peer
 * @property {string | null} logSpool  file that keeps log records until Origo acks them (survives a crash); null = memory only
 * @property {boolean} readAhead  after a byte range is asked, fetch the bytes after it (objects/read-ahead.js), and the next object a client names (&next=, a MUTP hint)
 * @property {import('@mutp/common/logger').Logger | undefined} logger
 */

/**
 * Fills defaults and validates. `allowedHosts` given here are ADDED to the default allowlist.
 * @param {Partial<Omit<ProxyConfig, 'location' | 'uploadRateBps' | 'cacheBytes' | 'maxObjectBytes' | 'rtcPorts'>> & {
 *   rtcPorts?: string | import('../rtc/ports.js').RtcPorts | null,
 *   location?: { lat: number, lon: number } | null, uploadRate?: string | number | null,
 *   uploadRateBps?: number | null, cacheBytes?: number | string, maxObjectBytes?: number | string,
 *   tlsCertFile?: string | null, tlsKeyFile?: string | null }} input
 * @returns {ProxyConfig}
 */
export function resolveConfig(input = {}) {
  const id = input.id ?? `proxy-${randomBytes(4).toString('hex')}`;
  if (typeof id !== 'string' || !/^[A-Za-z0-9._:-]+$/.test(id) || id.length > MAX_ID_CHARS) {
    throw codedError('ERR_BAD_CONFIG', `proxy id must be 1..${MAX_ID_CHARS} of [A-Za-z0-9._:-]`);
  }
  const port = input.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw codedError('ERR_BAD_CONFIG', `bad port ${port}`);
  const location = input.location ?? null;
  if (location !== null && !(isInRange(location.lat, -90, 90) && isInRange(location.lon, -180, 180))) {
    throw codedError('ERR_BAD_CONFIG', 'location needs lat in [-90, 90] and lon in [-180, 180]');
  }
  const rate = input.uploadRateBps ?? (input.uploadRate != null ? Math.round(parseRate(input.uploadRate, BAD_CONFIG)) : null);
  const extra = input.allowedHosts ?? [];
  for (const h of extra) parseHostPattern(h); // throws ERR_BAD_CONFIG on a bad entry
  for (const u of [...(input.origoUrl == null ? [] : origoUrlList(input.origoUrl)), input.publicUrl]) {
    if (u != null && !/^https?:\/\//.test(u)) throw codedError('ERR_BAD_CONFIG', `not an http(s) URL: ${u}`);
  }
  const originTimeoutMs = input.originTimeoutMs ?? DEFAULT_ORIGIN_TIMEOUT_MS;
  const requireTickets = input.requireTickets === true;
  if (requireTickets && !input.token) throw codedError('ERR_BAD_CONFIG', 'requireTickets needs the proxy token (--token / PROXY_TOKEN): tickets are checked with a key derived from it');
  const maxSessions = count(input.maxSessions ?? DEFAULT_MAX_SESSIONS, 'maxSessions', 1);
  const maxHttpFetches = count(input.maxHttpFetches ?? DEFAULT_MAX_HTTP_FETCHES, 'maxHttpFetches', 1);
  const maxOriginFetches = count(input.maxOriginFetches ?? DEFAULT_MAX_ORIGIN_FETCHES, 'maxOriginFetches', 1);
  const rateLimitPerMinute = count(input.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE, 'rateLimitPerMinute', 0);
  if (input.rtcBindAddress !== undefined && (typeof input.rtcBindAddress !== 'string' || input.rtcBindAddress === '')) {
    throw codedError('ERR_BAD_CONFIG', 'rtcBindAddress must be an IP address');
  }
  if (!(originTimeoutMs > 0)) throw codedError('ERR_BAD_CONFIG', 'originTimeoutMs must be > 0');
  return {
    id,
    token: input.token ?? null,
    host: input.host ?? DEFAULT_HOST,
    port,
    publicUrl: input.publicUrl ?? null,
    tls: pickTlsFiles(input.tlsCertFile, input.tlsKeyFile), // ERR_BAD_CONFIG: one without the other
    location,
    uploadRateBps: rate,
    cacheBytes: parseByteSize(input.cacheBytes ?? DEFAULT_CACHE_BYTES, BAD_CONFIG),
    maxObjectBytes: parseByteSize(input.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES, BAD_CONFIG),
    originTimeoutMs,
    allowedHosts: [...DEFAULT_ALLOWED_HOSTS, ...extra],
    allowPrivate: input.allowPrivate === true,
    origoUrl: input.origoUrl ?? null,
    statusEveryMs: input.statusEveryMs,
    logger: input.logger,
    requireTickets,
    maxSessions,
    maxHttpFetches,
    maxOriginFetches,
    rateLimitPerMinute,
    rtcBindAddress: input.rtcBindAddress,
    rtcPorts: input.rtcPorts == null ? null : parseRtcPorts(typeof input.rtcPorts === 'string' ? input.rtcPorts : `${input.rtcPorts.first}-${input.rtcPorts.last}`),
    logSpool: typeof input.logSpool === 'string' && input.logSpool !== '' ? input.logSpool : null,
    readAhead: input.readAhead !== false,
  };
}

/** @param {unknown} v @param {string} name @param {number} min */
function count(v, name, min) {
  if (!Number.isSafeInteger(v) || /** @type {number} */ (v) < min) throw codedError('ERR_BAD_CONFIG', `${name} must be a whole number >= ${min}`);
  return /** @type {number} */ (v);
}

/** @param {unknown} v @param {number} lo @param {number} hi */
function isInRange(v, lo, hi) {
  return typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;
}
