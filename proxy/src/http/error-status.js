// HTTP status per error code; origin-side failures are 502/504 (the proxy is a gateway).
const STATUS_BY_CODE = {
  ERR_BAD_URL: 400,
  ERR_BAD_QUERY: 400,
  ERR_HOST_NOT_ALLOWED: 403,
  ERR_SSRF_BLOCKED: 403,
  ERR_NOT_FOUND: 404,
  ERR_RANGE_NOT_SATISFIABLE: 416,
  ERR_TICKET_MISSING: 401,
  ERR_TICKET_EXPIRED: 401,
  ERR_TICKET_BAD: 403,
  ERR_TICKET_WRONG_PROXY: 403,
  ERR_RATE_LIMITED: 429,
  ERR_PROXY_BUSY: 503,
  ERR_ORIGIN_STATUS: 502,
  ERR_ORIGIN_RANGE: 502,
  ERR_ORIGIN_TOO_LARGE: 502,
  ERR_ORIGIN_ENCODED: 502,
  ERR_ORIGIN_LENGTH: 502,
  ERR_TOO_MANY_REDIRECTS: 502,
  ERR_ORIGIN_UNREACHABLE: 502,
  ERR_ORIGIN_TIMEOUT: 504,
};

/**
 * Sends `{ error: { code, message } }` with the status fitting the code.
 * @param {import('express').Response} res
 * @param {{ code?: string, message?: string }} err
 */
export function sendError(res, err) {
  const code = typeof err.code === 'string' && err.code.startsWith('ERR_') ? err.code : 'ERR_INTERNAL';
  const status = STATUS_BY_CODE[code] ?? 500;
  const message = code === 'ERR_INTERNAL' ? 'internal error' : String(err.message ?? code);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status).json({ error: { code, message } });
}
