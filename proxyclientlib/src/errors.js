// The {code, message} of a failure as the client's log records carry it.

/**
 * The {code, message} pair of any thrown value, for log records.
 * @param {unknown} err
 * @returns {{code: string, message: string}}
 */
export function errorInfo(err) {
  const e = /** @type {{code?: unknown, message?: unknown, name?: unknown}} */ (err ?? {});
  let code = typeof e.code === 'string' && e.code ? e.code : 'ERR_UNKNOWN';
  if (e.name === 'AbortError' && code === 'ERR_UNKNOWN') code = 'ERR_ABORTED';
  const message = typeof e.message === 'string' ? e.message : String(err);
  return { code, message: message.slice(0, MAX_ERROR_MESSAGE_CHARS) };
}

const MAX_ERROR_MESSAGE_CHARS = 500; // log records stay small; Origo caps field sizes too

/**
 * Whether a proxy's failure is its origin's (status, time-out, length, range, size, or MUTP's ERR_ORIGIN).
 * @param {string} code
 */
export function isOriginCode(code) {
  return /^ERR_ORIGIN(_|$)/.test(code);
}

/**
 * Each proxy's outcome for a failure's message: "p1: ERR_ORIGIN_STATUS, p2: no error"; when every
 * proxy failed with one code, that code once and what the first said: "each ERR_ORIGIN_STATUS;
 * origin answered 404".
 * @param {{proxyId: string, error: {code: string, message?: string} | null}[]} perProxy
 */
export function proxyOutcomes(perProxy) {
  const first = perProxy[0];
  if (perProxy.length > 1 && first.error && perProxy.every((s) => s.error?.code === first.error?.code)) {
    return `each ${first.error.code}${first.error.message ? `; ${first.error.message}` : ''}`;
  }
  return perProxy.map((s) => `${s.proxyId}: ${s.error?.code ?? 'no error'}`).join(', ');
}
