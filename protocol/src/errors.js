// Errors with machine-readable codes (err.code), thrown only for caller mistakes (bad
// parameters, objects too large); bad peer data never throws, it is counted and dropped.

/**
 * @param {string} code  e.g. 'ERR_PARAMS_DO_NOT_FIT'
 * @param {string} message
 * @returns {Error & {code: string}}
 */
export function protocolError(code, message) {
  const err = /** @type {Error & {code: string}} */ (new Error(message));
  err.code = code;
  return err;
}
