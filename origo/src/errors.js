/**
 * An Error with a machine-readable code.
 * @param {string} code
 * @param {string} message
 * @returns {Error & { code: string }}
 */
export function codedError(code, message) {
  const err = /** @type {Error & { code: string }} */ (new Error(message));
  err.code = code;
  return err;
}
