// Cheap checks that run before any expensive work on /fetch and /rtc/offer: the client's request
// rate, its Origo ticket, and the proxy's spare capacity.
import { rateLimit } from 'express-rate-limit';
import { createTicketVerifier } from '../tickets/ticket.js';
import { RATE_LIMIT_WINDOW_MS } from '../limits.js';
import { sendError } from './error-status.js';

/** HTTP status per ticket error: missing/expired → 401 (get a fresh ticket), forged/wrong proxy → 403. */
export const TICKET_STATUS = Object.freeze({
  ERR_TICKET_MISSING: 401,
  ERR_TICKET_EXPIRED: 401,
  ERR_TICKET_BAD: 403,
  ERR_TICKET_WRONG_PROXY: 403,
});

/**
 * A ticket check for this proxy, or null when tickets are not required.
 * @param {{ requireTickets: boolean, id: string, token: string | null }} config
 * @param {() => number} [now]  ms clock (Date.now)
 * @returns {((ticket: unknown) => import('../tickets/ticket.js').Ticket) | null}  the ticket's fields; throws a coded error with `status` (401/403)
 */
export function createTicketCheck(config, now = Date.now) {
  if (!config.requireTickets) return null;
  const verify = createTicketVerifier({ proxyId: config.id, token: /** @type {string} */ (config.token) });
  return (ticket) => {
    try {
      return verify(ticket, now());
    } catch (e) {
      const err = /** @type {any} */ (e);
      err.status = TICKET_STATUS[/** @type {keyof typeof TICKET_STATUS} */ (err.code)] ?? 403;
      throw err;
    }
  };
}

/**
 * GET /fetch: the ticket comes as `?ticket=` (no preflight in browsers) or the `X-MUTP-Ticket` header.
 * @param {(ticket: unknown) => void} check
 * @param {{ warn: Function }} logger
 * @returns {import('express').RequestHandler}
 */
export function fetchTicketGuard(check, logger) {
  return (req, res, next) => {
    const q = req.query.ticket;
    const ticket = q !== undefined ? q : req.headers['x-mutp-ticket'];
    try {
      check(ticket);
    } catch (e) {
      const err = /** @type {any} */ (e);
      logger.warn('fetch refused: bad ticket', { code: err.code, address: req.ip });
      return sendError(res, err);
    }
    next();
  };
}

/**
 * Caps concurrent /fetch responses: past the cap, 503 ERR_PROXY_BUSY before the cache or origin is touched.
 * @param {{ max: number, logger: { warn: Function } }} o
 * @returns {import('express').RequestHandler & { readonly active: number }}
 */
export function concurrencyGuard({ max, logger }) {
  let active = 0;
  /** @type {any} */
  const guard = (/** @type {import('express').Request} */ req, /** @type {import('express').Response} */ res, /** @type {import('express').NextFunction} */ next) => {
    if (active >= max) {
      logger.warn('fetch refused: busy', { active, max, address: req.ip });
      return sendError(res, { code: 'ERR_PROXY_BUSY', message: `more than ${max} concurrent fetches; try another proxy` });
    }
    active++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        active--;
      }
    };
    res.once('close', release);
    res.once('finish', release);
    next();
  };
  Object.defineProperty(guard, 'active', { get: () => active });
  return guard;
}

/**
 * Requests per window per client address (req.ip; `trust proxy` is off, so X-Forwarded-For is ignored).
 * @param {{ perMinute: number, logger: { warn: Function } }} o
 * @returns {import('express').RequestHandler}
 */
export function clientRateLimit({ perMinute, logger }) {
  return rateLimit({
    windowMs: RATE_LIMIT_WINDOW_MS,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    validate: { xForwardedForHeader: false },
    handler: (req, res) => {
      logger.warn('request refused: rate limit', { address: req.ip });
      sendError(res, { code: 'ERR_RATE_LIMITED', message: `more than ${perMinute} requests per minute; slow down` });
    },
  });
}
