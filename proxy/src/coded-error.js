/**
 * Errors with a machine-readable `code` (repo convention), e.g. ERR_SSRF_BLOCKED.
 * @param {string} code
 * @param {string} message
 * @param {Record<string, unknown>} [extra] extra fields copied onto the error
 * @returns {Error & { code: string }}
 */
export function codedError(code, message, extra = {}) {
  const err = /** @type {Error & { code: string }} */ (/** @type {unknown} */ (Object.assign(new Error(message), extra)));
  err.code = code;
  return err;
}
