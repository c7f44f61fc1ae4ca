import { once } from 'node:events';
import express from 'express';
import { createWebServer } from '@mutp/tls';
import { resolveConfig } from './config/resolve-config.js';
import { createLogger } from '@mutp/common/logger';
import { createHostAllowlist } from './ssrf/host-allowlist.js';
import { createOriginFetcher } from './origin/fetch-origin.js';
import { createObjectStore } from './objects/object-store.js';
import { READ_AHEAD_MAX_BYTES } from './objects/read-ahead.js';
import { createLogQueue } from './origo/log-queue.js';
import { openLogSpool } from './origo/log-spool.js';
import { PROXY_HTTP_IDLE_MS } from '@mutp/protocol/constants';
import { HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_TIMEOUT_CHECK_MS } from './limits.js';
import { createOrigoLink } from './origo/origo-link.js';
import { createCpuMeter } from './origo/cpu-meter.js';
import { createProxyLogs } from './proxy-records.js';
import { cors } from './http/cors.js';
import { createFetchRoute } from './http/fetch-route.js';
import { createNextHint } from './objects/next-hint.js';
import { checkTargetUrl } from './ssrf/target-url.js';
import { sendError } from './http/error-status.js';
import { mountRtcIfPresent } from './rtc-mount.js';
import { clientRateLimit, concurrencyGuard, createTicketCheck, fetchTicketGuard } from './http/access-guards.js';

// On close, give Origo this long to ack the records still queued.
const CLOSE_DRAIN_MS = 2000;

/**
 * Starts one proxy: HTTP server, object cache, Origo link, WebRTC (when present).
 * @param {Parameters<typeof resolveConfig>[0]} input
 * @param {{ protocol?: import('./rtc/mutp-session.js').ProtocolApi }} [wiring]  protocol: what the MUTP sessions encode
 *   and send with (default @mutp/protocol); the command line puts the test-only fault wrapper here (rtc/fault-protocol.js)
 */
export async function startProxy(input = {}, wiring = {}) {
  const config = resolveConfig(input);
  const logger = config.logger ?? createLogger({ name: config.id });
  const isHostAllowed = createHostAllowlist(config.allowedHosts);
  const fetcher = createOriginFetcher({
    allowPrivate: config.allowPrivate, isHostAllowed,
    maxObjectBytes: config.maxObjectBytes, originTimeoutMs: config.originTimeoutMs,
  });
  const objects = createObjectStore({ fetcher: fetcher.fetchOrigin, maxBytes: config.cacheBytes, maxOriginFetches: config.maxOriginFetches,
    readAheadBytes: config.readAhead ? Math.min(READ_AHEAD_MAX_BYTES, config.maxObjectBytes) : 0 });
  const checkTicket = createTicketCheck(config);
  const stats = { activeSessions: 0, bytesSent: 0, hintsRefused: 0 };
  const spool = config.logSpool ? openLogSpool(config.logSpool, logger) : null;
  const queue = createLogQueue({ onDrop: (r) => logger.warn('log queue full, dropped the oldest record', { id: r.id }),
    onAdded: spool ? (r) => spool.added(r) : undefined, onDone: spool ? (ids, left, rest) => spool.done(ids, left, rest) : undefined });
  for (const r of spool?.records ?? []) queue.push(r, { replayed: true });
  /** @type {ReturnType<typeof createOrigoLink> | null} */
  let link = null;
  const logs = createProxyLogs({ proxyId: config.id, queue, onRecord: () => link?.notify() });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(cors);
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, id: config.id, ...stats, cache: objects.stats(), pendingLogs: queue.size });
  });
  // Cheapest first: rate, then ticket, then capacity; only then the cache, the origin or WebRTC.
  if (config.rateLimitPerMinute > 0) {
    app.use(['/fetch', '/rtc'], clientRateLimit({ perMinute: config.rateLimitPerMinute, logger }));
  }
  const fetchGuards = [...(checkTicket ? [fetchTicketGuard(checkTicket, logger)] : []), concurrencyGuard({ max: config.maxHttpFetches, logger })];
  const checkUrl = (/** @type {string} */ url) => checkTargetUrl(url, { allowPrivate: config.allowPrivate, isHostAllowed });
  const hintNext = createNextHint({ objects, checkUrl, logger, stats });
  app.get('/fetch', ...fetchGuards, createFetchRoute({ objects, logs, stats, proxyId: config.id, hintNext }));
  const rtc = await mountRtcIfPresent(app, { objects, logs, stats, config, logger, checkTicket, hintNext, protocol: wiring.protocol }, logger);
  app.use((_req, res) => sendError(res, { code: 'ERR_NOT_FOUND', message: 'no such endpoint' }));
  app.use((/** @type {any} */ err, /** @type {any} */ _req, /** @type {any} */ res, /** @type {any} */ _next) => {
    // Body-parser errors and the like: the client's fault, not a crash.
    if (err?.status >= 400 && err.status < 500) {
      logger.warn('bad request', { message: err.message });
      return res.status(err.status).json({ error: { code: 'ERR_BAD_REQUEST', message: err.message } });
    }
    logger.error('unhandled error', { message: err?.message, stack: err?.stack });
    sendError(res, { code: 'ERR_INTERNAL' });
  });

  // HTTPS when given a certificate (a deployment: tickets and bodies must not travel in clear text).
  const { server, scheme } = createWebServer(app, { tls: config.tls, logger,
    serverOptions: { keepAliveTimeout: PROXY_HTTP_IDLE_MS, headersTimeout: HTTP_HEADERS_TIMEOUT_MS, requestTimeout: HTTP_REQUEST_TIMEOUT_MS, connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS } });
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${scheme}://${hostForUrl}:${address.port}`;
  const publicUrl = config.publicUrl ?? url;

  const cpu = createCpuMeter();
  if (config.origoUrl) {
    link = createOrigoLink({
      origoUrl: config.origoUrl, proxyId: config.id, token: config.token, queue, logger,
      statusEveryMs: config.statusEveryMs,
      getStatus: () => ({
        proxyId: config.id, publicUrl, location: config.location, uploadRateBps: config.uploadRateBps,
        activeSessions: stats.activeSessions, bytesSent: stats.bytesSent, cpu: cpu(),
      }),
    });
  }
  logger.info('proxy listening', { url, publicUrl, origo: config.origoUrl, allowPrivate: config.allowPrivate, requireTickets: config.requireTickets });

  let closing = null;
  return {
    url,
    publicUrl,
    port: address.port,
    id: config.id,
    config,
    objects,
    logs,
    stats,
    queue,
    /** Stops the server; gives Origo a moment to ack queued records first. */
    close() {
      closing ??= (async () => {
        if (link) {
          await link.drain(CLOSE_DRAIN_MS);
          link.close();
        }
        await rtc?.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        fetcher.close();
        spool?.close();
      })();
      return closing;
    },
  };
}
