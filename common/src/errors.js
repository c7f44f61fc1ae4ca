// Errors with a machine-readable code: callers branch on err.code, never on the text.
// Every code is listed with its meaning in ./error-codes.js.

/**
 * @template {Record<string, unknown>} [X={}]
 * @param {string} code     e.g. 'ERR_ALL_PROXIES_FAILED'
 * @param {string} message  human-readable explanation
 * @param {X} [extra]       extra fields copied onto the error (status, cause, proxyId, ...)
 * @returns {Error & {code: string} & X}
 */
export function codedError(code, message, extra) {
  const err = /** @type {Error & {code: string} & X} */ (new Error(message));
  if (extra) Object.assign(err, extra);
  err.code = code;
  return err;
}
