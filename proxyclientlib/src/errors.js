// Errors with machine-readable codes: callers (CLI, extension) branch on err.code, never on text.

/**
 * @param {string} code     e.g. 'ERR_ALL_PROXIES_FAILED'
 * @param {string} message  human-readable explanation
 * @param {Record<string, unknown>} [extra]  extra fields copied onto the error
 * @returns {Error & {code: string}}
 */
export function codedError(code, message, extra) {
  const err = /** @type {Error & {code: string}} */ (new Error(message));
  err.code = code;
  if (extra) Object.assign(err, extra);
  return err;
}

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
