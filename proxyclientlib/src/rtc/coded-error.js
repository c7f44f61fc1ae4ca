// Errors with a machine-readable code.

/**
 * @param {string} code
 * @param {string} message
 * @param {object} [extra]   extra properties (cause, proxyId, ...)
 * @returns {Error & { code: string }}
 */
export function codedError(code, message, extra = {}) {
  const err = /** @type {Error & { code: string }} */ (Object.assign(new Error(message), extra));
  err.code = code;
  return err;
}
