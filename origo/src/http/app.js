import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { LOGS_BODY_LIMIT_BYTES, QUOTA_WINDOW_MS, RATE_LIMIT_WINDOW_MS } from '../limits.js';
import { createAddressQuota } from './address-quota.js';
import { LOGS_CONTENT_TYPES, logsRoute } from './logs-route.js';
import { proxiesRoute, ticketsRoute } from './proxies-route.js';
import { sendError } from './send-error.js';

/**
 * The public HTTP API (docs/origo-api.md).
 * @param {{ registry: import('../registry/proxy-registry.js').ProxyRegistry, store: import('../store/store-interface.js').Store,
 *           logger: import('@mutp/common/logger').Logger, trustProxy: boolean | number | string, rateLimitPerMinute: number,
 *           random?: () => number, events?: import('node:events').EventEmitter, admin?: import('express').Router,
 *           proxySecret: string, now?: () => number, ticketsPerMinute?: number, logBytesPerMinute?: number }} deps
 *   admin: the /admin router (dashboard); events: see logsRoute; proxySecret signs client tickets; now: ms clock;
 *   ticketsPerMinute / logBytesPerMinute: per client address, 0 or absent = no cap
 */
export function createApp({ registry, store, logger, trustProxy, rateLimitPerMinute, random, events, admin, proxySecret, now,
  ticketsPerMinute = 0, logBytesPerMinute = 0 }) {
  const app = express();
  // Off by default: X-Forwarded-For from a direct client would let it pick its own rate-limit key.
  app.set('trust proxy', trustProxy);
  app.disable('x-powered-by');

  app.get('/healthz', (_req, res) => res.json({ ok: true }));

  const api = express.Router();
  // The client library runs in pages and extensions; the API holds no cookies or secrets, so any origin may call it.
  api.use((req, res, next) => {
    res.set('Access-Control-Allow-Origin', '*');
    if (req.method !== 'OPTIONS') return next();
    res.set('Access-Control-Allow-Methods', 'GET, POST');
    res.set('Access-Control-Allow-Headers', 'Content-Type');
    res.status(204).end();
  });
  if (rateLimitPerMinute > 0) {
    api.use(rateLimit({
      windowMs: RATE_LIMIT_WINDOW_MS,
      limit: rateLimitPerMinute,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      // Origo is often reached directly; a client's own X-Forwarded-For is then ignored (trust proxy off), not a misconfiguration.
      validate: { xForwardedForHeader: false },
      handler: (_req, res) => sendError(res, 429, 'ERR_RATE_LIMITED', `more than ${rateLimitPerMinute} requests per minute; slow down`),
    }));
  }
  const ticketQuota = ticketsPerMinute > 0 ? createAddressQuota({ perWindow: ticketsPerMinute, windowMs: QUOTA_WINDOW_MS, now }) : null;
  const logQuota = logBytesPerMinute > 0 ? createAddressQuota({ perWindow: logBytesPerMinute, windowMs: QUOTA_WINDOW_MS, now }) : null;
  api.get('/proxies', proxiesRoute({ registry, random, proxySecret, now, ticketQuota }));
  api.get('/tickets', ticketsRoute({ registry, proxySecret, now, ticketQuota }));
  const logsJson = express.json({ limit: LOGS_BODY_LIMIT_BYTES, strict: true, type: LOGS_CONTENT_TYPES });
  api.post('/logs', logsJson, logsRoute({ store, logger, events, quota: logQuota }));
  api.post('/logs/v2', logsJson, logsRoute({ store, logger, events, quota: logQuota, columns: true }));
  app.use('/api', api);
  if (admin) app.use('/admin', admin);

  app.use((_req, res) => sendError(res, 404, 'ERR_NOT_FOUND', 'no such endpoint'));
  // Body-parser errors (too large, bad JSON) and anything unexpected: JSON, never a stack trace.
  app.use((/** @type {any} */ err, /** @type {import('express').Request} */ _req, /** @type {import('express').Response} */ res, /** @type {import('express').NextFunction} */ _next) => {
    if (err?.type === 'entity.too.large') return sendError(res, 413, 'ERR_BODY_TOO_LARGE', `the body is over ${LOGS_BODY_LIMIT_BYTES} bytes`);
    if (err?.type === 'entity.parse.failed') return sendError(res, 400, 'ERR_BAD_JSON', 'the body is not valid JSON');
    if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) return sendError(res, err.status, 'ERR_BAD_REQUEST', String(err.message));
    logger.error('request failed', { message: err?.message });
    sendError(res, 500, 'ERR_INTERNAL', 'internal error');
  });
  return app;
}
