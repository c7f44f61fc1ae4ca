// The admin dashboard over HTTP: /admin pages, /admin/api JSON, exports. Everything except the
// login page (and the two files it loads) needs a session cookie: 401 without one.
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { sendError } from '../http/send-error.js';
import { MAX_PASSWORD_CHARS } from './admin-password.js';
import { parseBoxplotQuery, parseDownloadsQuery, parseFilter, parseRecordId } from './dashboard-filter.js';
import { OUTLIERS_PER_BOX, WHISKER_IQR } from '../store/dashboard-sql.js';

/** Failed logins allowed per address per window: slows password guessing to a crawl. */
export const LOGIN_ATTEMPTS_PER_WINDOW = 10;
/** Login rate-limit window, ms. */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Smallest box the paper shows (V.C: "each boxplot contains data at least from 100 video chunk downloads"). */
export const MIN_BOX_COUNT = 100;
/** Login body limit, bytes: a password and some JSON. */
const LOGIN_BODY_LIMIT_BYTES = 4096;

const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', 'admin');
const require = createRequire(import.meta.url);
/** Chart and socket libraries, served straight from node_modules (no front-end build step). */
const VENDOR = {
  'echarts.min.js': require.resolve('echarts/dist/echarts.min.js'),
  // socket.io-client's "exports" hide dist/; its package.json is exported, and dist/ sits next to it.
  'socket.io.min.js': join(dirname(require.resolve('socket.io-client/package.json')), 'dist', 'socket.io.min.js'),
};
const PAGES = { '/': 'fleet.html', '/downloads': 'downloads.html', '/download': 'download.html', '/analysis': 'analysis.html' };
/** Files the login page needs before there is a session. */
const PUBLIC_ASSETS = new Set(['admin.css', 'login.js']);

/** Scripts only from Origo itself; ECharts writes inline styles into its tooltips, hence style-src 'unsafe-inline'. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * @param {{ store: any, logger: import('@mutp/common/logger').Logger, sessions: ReturnType<typeof import('./admin-session.js').createSessionManager> | null,
 *           verifier: ReturnType<typeof import('./admin-password.js').createPasswordVerifier> | null, fleet: import('./fleet-view.js').FleetView,
 *           loginAttemptsPerWindow?: number }} deps  sessions/verifier null: the dashboard is disabled (no password configured)
 */
export function createAdminRouter({ store, logger, sessions, verifier, fleet, loginAttemptsPerWindow = LOGIN_ATTEMPTS_PER_WINDOW }) {
  const router = express.Router({ strict: false });
  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', CSP);
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Referrer-Policy', 'no-referrer');
    res.set('Cache-Control', 'no-store');
    next();
  });
  if (!sessions || !verifier) {
    router.use((_req, res) => sendError(res, 403, 'ERR_ADMIN_DISABLED', 'the admin dashboard is off: start Origo with an admin password'));
    return router;
  }

  const sendPublic = (/** @type {string} */ file) => (/** @type {import('express').Request} */ _req, /** @type {import('express').Response} */ res) => res.sendFile(file, { root: PUBLIC_DIR });
  router.get('/login', sendPublic('login.html'));
  router.get('/assets/:file', (req, res, next) => (PUBLIC_ASSETS.has(req.params.file) ? sendPublic(req.params.file)(req, res) : next()));
  router.post('/api/login',
    rateLimit({
      windowMs: LOGIN_WINDOW_MS, limit: loginAttemptsPerWindow, skipSuccessfulRequests: true, standardHeaders: 'draft-8', legacyHeaders: false,
      validate: { xForwardedForHeader: false },
      handler: (_req, res) => sendError(res, 429, 'ERR_RATE_LIMITED', 'too many failed logins; wait and try again'),
    }),
    express.json({ limit: LOGIN_BODY_LIMIT_BYTES }),
    async (req, res) => {
      // JSON only: a cross-site form cannot send it without a CORS preflight, which Origo never grants here.
      if (!req.is('application/json')) return sendError(res, 415, 'ERR_BAD_CONTENT_TYPE', 'send {"password": "..."} as application/json');
      const password = req.body?.password;
      if (typeof password !== 'string' || password.length > MAX_PASSWORD_CHARS || !(await verifier.verify(password))) {
        logger.warn('admin login failed', { address: req.ip });
        return sendError(res, 401, 'ERR_BAD_PASSWORD', 'wrong password');
      }
      logger.info('admin login', { address: req.ip });
      res.set('Set-Cookie', sessions.issueCookie());
      res.status(204).end();
    });

  // Everything below needs a session.
  router.use((req, res, next) => {
    if (sessions.isAuthenticated(req.headers.cookie)) return next();
    if (req.path.startsWith('/api/')) return sendError(res, 401, 'ERR_AUTH_REQUIRED', 'log in at /admin/login');
    res.status(401).type('html').send('<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><meta http-equiv="refresh" content="0;url=/admin/login">'
      + '<title>Login required</title><p>Login required: <a href="/admin/login">log in</a>.</p>');
  });

  router.post('/api/logout', (req, res) => {
    sessions.revoke(req.headers.cookie);
    res.set('Set-Cookie', sessions.clearCookie());
    res.status(204).end();
  });
  for (const [path, file] of Object.entries(PAGES)) router.get(path, sendPublic(file));
  router.get('/assets/:file', (req, res) => {
    if (!/^[a-z-]+\.(js|css)$/.test(req.params.file)) return sendError(res, 404, 'ERR_NOT_FOUND', 'no such file');
    res.sendFile(req.params.file, { root: PUBLIC_DIR }, (err) => err && !res.headersSent && sendError(res, 404, 'ERR_NOT_FOUND', 'no such file'));
  });
  router.get('/vendor/:file', (req, res) => {
    const file = Object.hasOwn(VENDOR, req.params.file) ? VENDOR[/** @type {keyof typeof VENDOR} */ (req.params.file)] : null;
    if (!file) return sendError(res, 404, 'ERR_NOT_FOUND', 'no such file');
    res.set('Cache-Control', 'private, max-age=3600');
    res.sendFile(file);
  });

  /** Wraps a handler: ERR_BAD_QUERY → 400, ERR_EXPORT_UNSUPPORTED (Parquet on PostgreSQL) → 501, anything else → 500 with a log line. @param {(req: import('express').Request, res: import('express').Response) => Promise<unknown>} fn */
  const handle = (fn) => async (/** @type {import('express').Request} */ req, /** @type {import('express').Response} */ res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err?.code === 'ERR_BAD_QUERY') return sendError(res, 400, 'ERR_BAD_QUERY', err.message);
      if (err?.code === 'ERR_EXPORT_UNSUPPORTED') return sendError(res, 501, 'ERR_EXPORT_UNSUPPORTED', err.message);
      logger.error('admin request failed', { path: req.path, code: err?.code, message: err?.message });
      if (!res.headersSent) sendError(res, 500, 'ERR_INTERNAL', 'internal error');
    }
  };

  router.get('/api/session', (_req, res) => res.json({ ok: true }));
  router.get('/api/fleet', (_req, res) => res.json({ proxies: fleet.all() }));
  router.get('/api/downloads', handle(async (req, res) => {
    const q = parseDownloadsQuery(/** @type {Record<string, unknown>} */ (req.query));
    const { total, rows } = await store.listDownloads(q);
    res.json({ total, offset: q.offset, limit: q.limit, rows });
  }));
  router.get('/api/downloads/:id', handle(async (req, res) => {
    const record = await store.getClientRecord(parseRecordId(req.params.id));
    if (!record) return sendError(res, 404, 'ERR_NOT_FOUND', 'no such record');
    res.json({ record });
  }));
  router.get('/api/boxplot', handle(async (req, res) => {
    const q = parseBoxplotQuery(/** @type {Record<string, unknown>} */ (req.query));
    const boxes = await store.boxplot(q);
    res.json({ metric: q.metric, groupBy: q.groupBy, whiskerIqr: WHISKER_IQR, outliersPerBox: OUTLIERS_PER_BOX, minCount: MIN_BOX_COUNT, boxes });
  }));
  for (const format of /** @type {const} */ (['csv', 'parquet'])) {
    router.get(`/api/export.${format}`, handle(async (req, res) => {
      const filter = parseFilter({ errors: 'include', ...req.query });
      const dir = await mkdtemp(join(tmpdir(), 'origo-export-'));
      const path = join(dir, `records.${format}`);
      try {
        await store.exportRecords({ filter, format, path });
        await new Promise((resolve, reject) => res.download(path, `origo-records.${format}`, (err) => (err ? reject(err) : resolve(undefined))));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }));
  }
  router.use((_req, res) => sendError(res, 404, 'ERR_NOT_FOUND', 'no such admin page'));
  return router;
}
