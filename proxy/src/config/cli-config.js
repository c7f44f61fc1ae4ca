import { parseArgs } from 'node:util';
import { codedError } from '@mutp/common/errors';
import { splitHostList } from '../ssrf/host-allowlist.js';
import { DEFAULT_MAX_HTTP_FETCHES, DEFAULT_MAX_ORIGIN_FETCHES, DEFAULT_RATE_LIMIT_PER_MINUTE } from '../limits.js';
import { DEFAULT_MAX_SESSIONS } from '../rtc/limits.js';

// A fixed default makes `mutp-proxy` reachable without flags; npm start passes its own ports.
export const CLI_DEFAULT_PORT = 8090;

export const HELP = `Usage: mutp-proxy [options]

A MUTP proxy: fetches allowlisted origin objects once (LRU cache), serves them over
HTTP (GET /fetch?url=…, Range) and WebRTC (POST /rtc/offer), reports to Origo.

Options (flag / environment variable):
  --port N              PROXY_PORT          listen port (default ${CLI_DEFAULT_PORT}; 0 = any free port)
  --host ADDR           PROXY_HOST          listen address (default 127.0.0.1)
  --id ID               PROXY_ID            proxy id (default: random)
  --token HEX           PROXY_TOKEN         HMAC-SHA256(ORIGO_PROXY_SECRET, id) in hex
  --origo URL           ORIGO_URL           Origo base URL, e.g. http://127.0.0.1:8080 (none: standalone)
                                            several Origos of one service: comma-separated, tried in turn
  --public-url URL      PROXY_PUBLIC_URL    URL clients use to reach this proxy (default http(s)://host:port)
  --tls-cert FILE       PROXY_TLS_CERT      serve HTTPS with this certificate chain (PEM); reloaded when it changes
  --tls-key FILE        PROXY_TLS_KEY       its private key (PEM); give both or neither (docs/deploy.md, "TLS")
  --lat DEG             PROXY_LAT           location reported to Origo (proximity rule)
  --lon DEG             PROXY_LON
  --upload-rate SIZE    UPLOAD_RATE         upload rate per second, e.g. 896KiB: told to Origo, and MUTP never paced above it
  --cache-size SIZE     PROXY_CACHE_SIZE    LRU cache size in bytes, e.g. 256MiB (default 256MiB)
  --max-object SIZE     PROXY_MAX_OBJECT    largest origin object accepted (default 64MiB)
  --origin-timeout MS   PROXY_ORIGIN_TIMEOUT_MS  whole origin fetch time cap (default 30000)
  --allowed-hosts LIST  MUTP_ALLOWED_HOSTS  extra allowed origin hosts, comma-separated host[:port]
                                            (always allowed: *.googlevideo.com)
  --rtc-bind ADDR       PROXY_RTC_BIND      address WebRTC binds to (default: 127.0.0.1 when --host is loopback)
  --rtc-ports PORTS     PROXY_RTC_PORTS     UDP ports WebRTC uses: PORT (one, shared by every peer: the one UDP
                                            port a firewall must open) or FIRST-LAST (a port per peer connection,
                                            at most that many at once) (default: an ephemeral port per peer)
  --no-require-tickets  PROXY_REQUIRE_TICKETS=0  serve clients without an Origo ticket (default: tickets
                                            are required; needs --token)
  --max-sessions N      PROXY_MAX_SESSIONS  concurrent WebRTC sessions (default ${DEFAULT_MAX_SESSIONS})
  --max-fetches N       PROXY_MAX_FETCHES   concurrent GET /fetch responses (default ${DEFAULT_MAX_HTTP_FETCHES})
  --max-origin-fetches N PROXY_MAX_ORIGIN_FETCHES  concurrent origin downloads (default ${DEFAULT_MAX_ORIGIN_FETCHES})
  --rate-limit N        PROXY_RATE_LIMIT    requests per minute per client address, 0 = off (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})
  --log-spool FILE      PROXY_LOG_SPOOL     keep log records in FILE until Origo acks them, so a crash
                                            loses none (default: memory only)
  --no-read-ahead       PROXY_READ_AHEAD=0  do not fetch ahead: neither the bytes after a byte range
                                            nor the next object a client names (default: both)
  --allow-private       PROXY_ALLOW_PRIVATE=1  TESTS ONLY: allow loopback/private origin addresses
  -h, --help                                this text

Environment only:
  MUTP_RTC_BUILD=stock|auto|tuned  WebRTC build: stock (default), auto (tuned when npm run build:rtc
                                   built it), tuned (refuses to fall back); proxy/native/README.md
`;

/**
 * Reads flags, falling back to environment variables.
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ help: true } | { help: false, config: Parameters<typeof import('./resolve-config.js').resolveConfig>[0] }}
 */
export function configFromCli(argv, env) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, id: { type: 'string' }, token: { type: 'string' },
      origo: { type: 'string' }, 'public-url': { type: 'string' },
      'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' }, lat: { type: 'string' }, lon: { type: 'string' },
      'upload-rate': { type: 'string' }, 'cache-size': { type: 'string' }, 'max-object': { type: 'string' },
      'origin-timeout': { type: 'string' }, 'allowed-hosts': { type: 'string' },
      'rtc-bind': { type: 'string' }, 'rtc-ports': { type: 'string' }, 'no-require-tickets': { type: 'boolean' }, 'max-sessions': { type: 'string' },
      'max-fetches': { type: 'string' }, 'max-origin-fetches': { type: 'string' }, 'rate-limit': { type: 'string' },
      'allow-private': { type: 'boolean' }, 'log-spool': { type: 'string' }, 'no-read-ahead': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  const pick = (/** @type {string} */ flag, /** @type {string} */ name) => {
    const v = /** @type {string | undefined} */ (values[flag]) ?? env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const lat = pick('lat', 'PROXY_LAT');
  const lon = pick('lon', 'PROXY_LON');
  if ((lat === undefined) !== (lon === undefined)) throw codedError('ERR_BAD_CONFIG', 'give both --lat and --lon, or neither');
  const allowPrivateEnv = env.PROXY_ALLOW_PRIVATE;
  // Production default: only Origo's clients (with its tickets) may use the proxy.
  const ticketsEnv = env.PROXY_REQUIRE_TICKETS;
  const requireTickets = values['no-require-tickets'] !== true && ticketsEnv !== '0' && ticketsEnv !== 'false';
  const readAheadEnv = env.PROXY_READ_AHEAD;
  const readAhead = values['no-read-ahead'] !== true && readAheadEnv !== '0' && readAheadEnv !== 'false';
  return {
    help: false,
    config: {
      port: toInt(pick('port', 'PROXY_PORT') ?? String(CLI_DEFAULT_PORT), 'port'),
      host: pick('host', 'PROXY_HOST'),
      id: pick('id', 'PROXY_ID'),
      token: pick('token', 'PROXY_TOKEN'),
      origoUrl: pick('origo', 'ORIGO_URL'),
      publicUrl: pick('public-url', 'PROXY_PUBLIC_URL'),
      tlsCertFile: pick('tls-cert', 'PROXY_TLS_CERT'),
      tlsKeyFile: pick('tls-key', 'PROXY_TLS_KEY'),
      location: lat === undefined ? null : { lat: toNumber(lat, 'lat'), lon: toNumber(lon, 'lon') },
      uploadRate: pick('upload-rate', 'UPLOAD_RATE') ?? null,
      cacheBytes: pick('cache-size', 'PROXY_CACHE_SIZE'),
      maxObjectBytes: pick('max-object', 'PROXY_MAX_OBJECT'),
      originTimeoutMs: maybe(pick('origin-timeout', 'PROXY_ORIGIN_TIMEOUT_MS'), (v) => toInt(v, 'origin-timeout')),
      allowedHosts: splitHostList(pick('allowed-hosts', 'MUTP_ALLOWED_HOSTS')),
      allowPrivate: values['allow-private'] === true || allowPrivateEnv === '1' || allowPrivateEnv === 'true',
      requireTickets,
      rtcBindAddress: pick('rtc-bind', 'PROXY_RTC_BIND'),
      rtcPorts: pick('rtc-ports', 'PROXY_RTC_PORTS'),
      maxSessions: maybe(pick('max-sessions', 'PROXY_MAX_SESSIONS'), (v) => toInt(v, 'max-sessions')),
      maxHttpFetches: maybe(pick('max-fetches', 'PROXY_MAX_FETCHES'), (v) => toInt(v, 'max-fetches')),
      maxOriginFetches: maybe(pick('max-origin-fetches', 'PROXY_MAX_ORIGIN_FETCHES'), (v) => toInt(v, 'max-origin-fetches')),
      rateLimitPerMinute: maybe(pick('rate-limit', 'PROXY_RATE_LIMIT'), (v) => toInt(v, 'rate-limit')),
      logSpool: pick('log-spool', 'PROXY_LOG_SPOOL'),
      readAhead,
    },
  };
}

/** @template T @param {string | undefined} v @param {(v: string) => T} f */
function maybe(v, f) {
  return v === undefined ? undefined : f(v);
}

/** @param {string} v @param {string} name */
function toInt(v, name) {
  if (!/^\d+$/.test(v)) throw codedError('ERR_BAD_CONFIG', `--${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** @param {string} v @param {string} name */
function toNumber(v, name) {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw codedError('ERR_BAD_CONFIG', `--${name} must be a number`);
  return n;
}
