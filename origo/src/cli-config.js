import { parseArgs } from 'node:util';
import { codedError } from '@mutp/common/errors';
import { DEFAULT_LOG_BYTES_PER_MINUTE, DEFAULT_RATE_LIMIT_PER_MINUTE, DEFAULT_TICKETS_PER_MINUTE } from './limits.js';

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';
/** Relative to the working directory; `*.duckdb` is git-ignored. */
export const DEFAULT_DB = './.data/origo.duckdb';
/** Shortest proxy secret the CLI accepts, characters: an HMAC key should not be guessable. */
export const MIN_SECRET_CHARS = 16;

export const USAGE = `Usage: origo [options]            start the Origo server
       origo token <proxyId>        print the token a proxy must present (needs the secret)

Options (flag, or environment variable):
  --port <n>            ORIGO_PORT           TCP port (default ${DEFAULT_PORT}; 0 = any free port)
  --host <addr>         ORIGO_HOST           address to bind (default ${DEFAULT_HOST})
  --db <path|url>       ORIGO_DB             DuckDB file, or :memory: (default ${DEFAULT_DB}), or postgres://… to
                                             share one PostgreSQL between several Origos (docs/deploy.md)
  --proxy-secret <s>    ORIGO_PROXY_SECRET   secret for proxy tokens, >= ${MIN_SECRET_CHARS} characters (required)
  --trust-proxy <v>     ORIGO_TRUST_PROXY    Express 'trust proxy' behind a reverse proxy: a hop count,
                                             'loopback', or an address list (default off)
  --rate-limit <n>      ORIGO_RATE_LIMIT     /api requests per minute per client address, 0 = off (default ${DEFAULT_RATE_LIMIT_PER_MINUTE})
  --ticket-rate <n>     ORIGO_TICKET_RATE    client tickets issued per minute per client address, 0 = off (default ${DEFAULT_TICKETS_PER_MINUTE})
  --log-quota <bytes>   ORIGO_LOG_QUOTA      client-record bytes stored per minute per client address, 0 = off (default ${DEFAULT_LOG_BYTES_PER_MINUTE})
  --allow-private-proxies  ORIGO_ALLOW_PRIVATE_PROXIES=1
                                             list proxies whose public URL is a loopback, private or link-local
                                             address (local fleets, testbeds); off by default. Metadata addresses never.
  --admin-password <s>  ORIGO_ADMIN_PASSWORD password of the /admin dashboard (required; kept only as a scrypt hash)
  --insecure-dev                             allow an empty or default admin password (empty → "admin"), for local use only
  --tls-cert <file>     ORIGO_TLS_CERT       serve HTTPS (API, socket.io, dashboard) with this PEM certificate chain;
                                             reloaded when the file changes (docs/deploy.md, "TLS")
  --tls-key <file>      ORIGO_TLS_KEY        its PEM private key (give both or neither)
  --allow-plain-http-proxies  ORIGO_ALLOW_PLAIN_HTTP_PROXIES=1  LAB ONLY: offer proxies whose public URL is
                                             http:// on a public address (Chromium blocks them from HTTPS pages;
                                             tickets travel in clear text). Loopback and private http:// are always offered.
  -h, --help                                 show this help

A proxy's token is HMAC-SHA256(secret, proxyId) in lowercase hex; \`origo token <id>\` prints it.`;

/** @param {string} name @param {string} value @param {number} min @param {number} max */
function integer(name, value, min, max) {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw codedError('ERR_BAD_FLAG', `${name} must be an integer in [${min}, ${max}], got "${value}"`);
  return Number(value);
}

/** @param {string} value */
function trustProxyValue(value) {
  if (value === 'false' || value === '0' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (value === 'true') throw codedError('ERR_BAD_FLAG', '--trust-proxy true would trust any X-Forwarded-For; give a hop count or addresses');
  return value;
}

/**
 * Flags win over environment variables, which win over defaults.
 * @param {string[]} argv  process.argv.slice(2)
 * @param {Record<string, string | undefined>} env
 * @returns {{ command: 'help' } | { command: 'token', proxyId: string, proxySecret: string } | { command: 'serve', config: import('./server.js').OrigoConfig & { port: number, host: string, db: string } }}
 */
export function parseCli(argv, env) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        'proxy-secret': { type: 'string' },
        'trust-proxy': { type: 'string' },
        'rate-limit': { type: 'string' },
        'admin-password': { type: 'string' },
        'insecure-dev': { type: 'boolean' },
        'ticket-rate': { type: 'string' },
        'log-quota': { type: 'string' },
        'allow-private-proxies': { type: 'boolean' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'allow-plain-http-proxies': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw codedError('ERR_BAD_FLAG', err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  const pick = (/** @type {string} */ flag, /** @type {string} */ envName) => values[flag] ?? env[envName];

  const proxySecret = pick('proxy-secret', 'ORIGO_PROXY_SECRET');
  if (!proxySecret) throw codedError('ERR_CONFIG', 'a proxy secret is required: --proxy-secret or ORIGO_PROXY_SECRET');
  if (proxySecret.length < MIN_SECRET_CHARS) throw codedError('ERR_CONFIG', `the proxy secret must be at least ${MIN_SECRET_CHARS} characters`);

  if (positionals[0] === 'token') {
    if (positionals.length !== 2) throw codedError('ERR_BAD_FLAG', 'usage: origo token <proxyId>');
    return { command: 'token', proxyId: positionals[1], proxySecret };
  }
  if (positionals.length) throw codedError('ERR_BAD_FLAG', `unexpected argument "${positionals[0]}"`);

  const port = integer('--port', pick('port', 'ORIGO_PORT') ?? String(DEFAULT_PORT), 0, 65535);
  const host = pick('host', 'ORIGO_HOST') ?? DEFAULT_HOST;
  const db = pick('db', 'ORIGO_DB') ?? DEFAULT_DB;
  const rateLimitPerMinute = integer('--rate-limit', pick('rate-limit', 'ORIGO_RATE_LIMIT') ?? String(DEFAULT_RATE_LIMIT_PER_MINUTE), 0, 1e9);
  const trustProxy = trustProxyValue(pick('trust-proxy', 'ORIGO_TRUST_PROXY') ?? 'false');
  // Always set (never undefined), so the CLI cannot start with the dashboard silently off; startOrigo
  // refuses an empty or default one unless --insecure-dev.
  const adminPassword = pick('admin-password', 'ORIGO_ADMIN_PASSWORD') ?? '';
  const insecureDev = values['insecure-dev'] === true;
  const ticketsPerMinute = integer('--ticket-rate', pick('ticket-rate', 'ORIGO_TICKET_RATE') ?? String(DEFAULT_TICKETS_PER_MINUTE), 0, 1e9);
  const logBytesPerMinute = integer('--log-quota', pick('log-quota', 'ORIGO_LOG_QUOTA') ?? String(DEFAULT_LOG_BYTES_PER_MINUTE), 0, 1e15);
  const allowPrivateProxyUrls = values['allow-private-proxies'] === true || env.ORIGO_ALLOW_PRIVATE_PROXIES === '1';
  const tlsCertFile = pick('tls-cert', 'ORIGO_TLS_CERT') || undefined;
  const tlsKeyFile = pick('tls-key', 'ORIGO_TLS_KEY') || undefined;
  const plainEnv = env.ORIGO_ALLOW_PLAIN_HTTP_PROXIES;
  const allowPlainHttpProxies = values['allow-plain-http-proxies'] === true || plainEnv === '1' || plainEnv === 'true';
  return {
    command: 'serve',
    config: { port, host, db, proxySecret, rateLimitPerMinute, trustProxy, adminPassword, insecureDev,
      ticketsPerMinute, logBytesPerMinute, allowPrivateProxyUrls, tlsCertFile, tlsKeyFile, allowPlainHttpProxies },
  };
}
