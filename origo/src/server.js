import { EventEmitter } from 'node:events';
import { createWebServer, pickTlsFiles } from '@mutp/tls';
import { Server } from 'socket.io';
import { mountAdminNamespace } from './admin/admin-namespace.js';
import { checkPasswordPolicy, createPasswordVerifier } from './admin/admin-password.js';
import { createAdminRouter } from './admin/admin-router.js';
import { createSessionManager } from './admin/admin-session.js';
import { FleetView } from './admin/fleet-view.js';
import { codedError } from '@mutp/common/errors';
import { createApp } from './http/app.js';
import {
  DEFAULT_LOG_BYTES_PER_MINUTE, DEFAULT_RATE_LIMIT_PER_MINUTE, DEFAULT_TICKETS_PER_MINUTE, HTTP_HEADERS_TIMEOUT_MS, HTTP_IDLE_MS,
  HTTP_REQUEST_TIMEOUT_MS, HTTP_TIMEOUT_CHECK_MS, PROXY_EVENTS_PER_SECOND, SOCKET_MAX_MESSAGE_BYTES,
} from './limits.js';
import { createLogger } from '@mutp/common/logger';
import { ProxyRegistry } from './registry/proxy-registry.js';
import { warnAboutNotOffered } from './registry/public-url-policy.js';
import { mountProxyNamespace } from './socket/proxy-namespace.js';
import { openStore } from './store/open-store.js';
import { isPostgresUrl, redactDbUrl } from './store/pg-store.js';
import { joinPgCluster } from './cluster/pg-cluster.js';

/**
 * @typedef {object} OrigoConfig
 * @property {string} proxySecret          HMAC key for proxy tokens (required)
 * @property {number} [port]               default 8080; 0 picks a free port
 * @property {string} [host]               default 127.0.0.1
 * @property {string} [db]                 DuckDB file path or ':memory:' (default), or a postgres:// URL (several Origos, one database)
 * @property {import('./store/store-interface.js').Store} [store]  use this store instead of opening `db` (the caller closes it)
 * @property {boolean | number | string} [trustProxy]  Express 'trust proxy' (default false)
 * @property {number} [rateLimitPerMinute] per client address on /api; 0 disables (default 1200)
 * @property {number} [ticketsPerMinute]   client tickets issued per client address per minute; 0 disables (default 600)
 * @property {number} [logBytesPerMinute]  client-record bytes stored per client address per minute; 0 disables (default 16 MiB)
 * @property {boolean} [allowPrivateProxyUrls]  accept proxies whose publicUrl is loopback/private/link-local (local fleets,
 *                                         testbeds); default false: such a status is ignored. Metadata addresses never pass.
 * @property {number} [proxyEventsPerSecond]  socket.io events per second one proxy may send before it is disconnected; 0 disables (default 50)
 * @property {import('@mutp/common/logger').Logger} [logger]
 * @property {() => number} [random]       for proxy selection
 * @property {() => number} [now]          ms clock for client tickets (default Date.now; tests move it)
 * @property {string} [adminPassword]      the /admin dashboard password (ORIGO_ADMIN_PASSWORD); omitted = dashboard off (403).
 *                                         Empty or a default password is refused (ERR_ADMIN_PASSWORD) unless insecureDev.
 * @property {boolean} [insecureDev]       accept an empty/default admin password (empty → "admin") with a loud warning
 * @property {boolean} [secureCookies]     mark the session cookie Secure (default: on when Origo serves HTTPS itself)
 * @property {string} [tlsCertFile]        serve HTTPS (API, socket.io, dashboard) with this PEM chain; reloaded when it changes
 * @property {string} [tlsKeyFile]         its PEM key; both or neither
 * @property {boolean} [allowPlainHttpProxies]  LAB ONLY: offer proxies whose public URL is http:// on a public
 *                                         address (browsers block them from HTTPS pages; tickets travel in clear)
 * @property {number} [adminLoginAttemptsPerWindow]  failed logins per address per 15 min (default 10)
 */

/**
 * Starts Origo: HTTP API + socket.io `/proxy` on one port.
 * @param {OrigoConfig} config
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void>, store: import('./store/store-interface.js').Store, adminUrl: string | null }>}
 */
export async function startOrigo(config) {
  const {
    proxySecret, port = 8080, host = '127.0.0.1', db = ':memory:', trustProxy = false,
    rateLimitPerMinute = DEFAULT_RATE_LIMIT_PER_MINUTE, logger = createLogger({ name: 'origo' }), random,
  } = config ?? /** @type {OrigoConfig} */ ({});
  if (typeof proxySecret !== 'string' || proxySecret.length === 0) throw codedError('ERR_CONFIG', 'proxySecret is required (ORIGO_PROXY_SECRET)');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw codedError('ERR_CONFIG', `bad port: ${port}`);
  // Checked before anything opens: a weak admin password stops the start (unless insecureDev).
  const adminOn = config.adminPassword !== undefined || config.insecureDev === true;
  const verifier = adminOn
    ? createPasswordVerifier(checkPasswordPolicy({ password: config.adminPassword, insecureDev: config.insecureDev, logger }))
    : null;
  const tls = tlsFiles(config);
  const sessions = adminOn ? createSessionManager({ secure: config.secureCookies ?? tls !== null }) : null;

  const ownsStore = !config.store;
  const store = config.store ?? (await openStore(db, { logger }));
  const urlPolicy = { allowPlainHttp: config.allowPlainHttpProxies === true };
  const events = new EventEmitter();
  // Origos on one PostgreSQL share the proxy registry and the live view (cluster/pg-cluster.js).
  const cluster = ownsStore && isPostgresUrl(db)
    ? await joinPgCluster({ url: db, pool: /** @type {any} */ (store).pool, events, policy: urlPolicy, logger }) : null;
  const registry = cluster?.registry ?? new ProxyRegistry(urlPolicy);
  const fleet = new FleetView(urlPolicy);
  warnAboutNotOffered(events, urlPolicy, logger);
  if (adminOn && typeof store.latestProxyStatus === 'function') fleet.seed(await store.latestProxyStatus());
  events.on('proxy-connected', (id) => events.emit('fleet', fleet.connected(id, Date.now())));
  events.on('proxy-status', (status) => events.emit('fleet', fleet.status(status, Date.now())));
  events.on('proxy-disconnected', (id) => events.emit('fleet', fleet.disconnected(id, Date.now())));
  const admin = createAdminRouter({ store, logger, sessions, verifier, fleet, loginAttemptsPerWindow: config.adminLoginAttemptsPerWindow });
  const app = createApp({ registry, store, logger, trustProxy, rateLimitPerMinute, random, events, admin, proxySecret, now: config.now,
    ticketsPerMinute: config.ticketsPerMinute ?? DEFAULT_TICKETS_PER_MINUTE, logBytesPerMinute: config.logBytesPerMinute ?? DEFAULT_LOG_BYTES_PER_MINUTE });
  const { server: httpServer, scheme } = createWebServer(app, { tls, logger,
    serverOptions: { keepAliveTimeout: HTTP_IDLE_MS, headersTimeout: HTTP_HEADERS_TIMEOUT_MS, requestTimeout: HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS } });
  const io = new Server(httpServer, { maxHttpBufferSize: SOCKET_MAX_MESSAGE_BYTES, serveClient: false });
  // Only /proxy is served; refuse the default namespace so nothing else can hold a socket open.
  io.of('/').use((_socket, next) => next(Object.assign(new Error('ERR_NAMESPACE'), { data: { code: 'ERR_NAMESPACE' } })));
  const proxyNsp = mountProxyNamespace({ io, secret: proxySecret, registry, store, logger, events,
    allowPrivateProxyUrls: config.allowPrivateProxyUrls === true, eventsPerSecond: config.proxyEventsPerSecond ?? PROXY_EVENTS_PER_SECOND });
  mountAdminNamespace({ io, sessions, fleet, events, store, logger });

  try {
    await new Promise((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(port, host, () => resolve(undefined));
    });
  } catch (err) {
    io.close();
    await cluster?.close();
    if (ownsStore) await store.close();
    throw codedError('ERR_LISTEN', `cannot listen on ${host}:${port}: ${err.message}`, { cause: err });
  }
  const address = /** @type {import('node:net').AddressInfo} */ (httpServer.address());
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  logger.info('origo listening', { url, db: ownsStore ? redactDbUrl(db) : '(given store)' });

  let closing = null;
  const close = () => (closing ??= (async () => {
    // io.close() disconnects every socket and closes the HTTP server, whose close waits for every
    // open connection: a client posting over keep-alive would hold it open for ever, so they are
    // all dropped at once (a cut POST is retried by its sender; inserts are idempotent by id).
    const serverClosed = new Promise((resolve) => io.close(() => resolve(undefined)));
    proxyNsp.close();
    httpServer.closeAllConnections();
    await serverClosed;
    await cluster?.close();
    if (ownsStore) await store.close();
    logger.info('origo stopped', { url });
  })());

  if (adminOn) logger.info('admin dashboard', { url: `${url}/admin` });
  return { url, port: address.port, close, store, adminUrl: adminOn ? `${url}/admin` : null };
}

/** @param {OrigoConfig} config */
function tlsFiles(config) {
  try {
    return pickTlsFiles(config.tlsCertFile, config.tlsKeyFile);
  } catch (err) {
    throw codedError('ERR_CONFIG', err.message);
  }
}
