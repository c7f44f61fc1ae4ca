// Parameter limits and the checks that enforce them at the API edge.

/** Largest generation: coefficients are bytes and Kodo's binary8 coder stops at 255 too. */
export const MAX_SYMBOLS = 255;
/** Largest symbol in bytes (1 MiB): WebRTC messages stay far below; larger ones only waste memory. */
export const MAX_SYMBOL_SIZE = 1 << 20;

/**
 * @param {string} code
 * @param {string} message
 * @returns {RangeError}
 */
export function rangeError(code, message) {
  const err = new RangeError(message);
  /** @type {any} */ (err).code = code;
  return err;
}

/**
 * @param {string} code
 * @param {string} message
 * @returns {TypeError}
 */
export function typeError(code, message) {
  const err = new TypeError(message);
  /** @type {any} */ (err).code = code;
  return err;
}

/**
 * Checks `symbols` and `symbolSize` and returns them as numbers.
 * @param {any} opts
 * @returns {{symbols: number, symbolSize: number}}
 */
export function checkShape(opts) {
  if (opts == null || typeof opts !== 'object') {
    throw typeError('ERR_RLNC_BAD_OPTIONS', 'options object { symbols, symbolSize } is required');
  }
  const { symbols, symbolSize } = opts;
  if (typeof symbols !== 'number' || !Number.isInteger(symbols)) {
    throw typeError('ERR_RLNC_BAD_SYMBOLS', `symbols must be an integer, got ${String(symbols)}`);
  }
  if (symbols < 1 || symbols > MAX_SYMBOLS) {
    throw rangeError('ERR_RLNC_BAD_SYMBOLS', `symbols must be 1..${MAX_SYMBOLS}, got ${symbols}`);
  }
  if (typeof symbolSize !== 'number' || !Number.isInteger(symbolSize)) {
    throw typeError('ERR_RLNC_BAD_SYMBOL_SIZE', `symbolSize must be an integer, got ${String(symbolSize)}`);
  }
  if (symbolSize < 1 || symbolSize > MAX_SYMBOL_SIZE) {
    throw rangeError('ERR_RLNC_BAD_SYMBOL_SIZE', `symbolSize must be 1..${MAX_SYMBOL_SIZE}, got ${symbolSize}`);
  }
  return { symbols, symbolSize };
}

/**
 * @param {any} bytes
 * @param {number} expected
 * @param {string} what
 * @returns {Uint8Array}
 */
export function checkBytes(bytes, expected, what) {
  if (!(bytes instanceof Uint8Array)) {
    throw typeError('ERR_RLNC_BAD_INPUT', `${what} must be a Uint8Array`);
  }
  if (bytes.length !== expected) {
    throw rangeError('ERR_RLNC_BAD_LENGTH', `${what} must be ${expected} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/**
 * Checks that `bytes` is a Uint8Array with `length` bytes from `offset` on.
 * @param {any} bytes
 * @param {any} offset
 * @param {number} length
 * @param {string} what
 * @returns {Uint8Array}
 */
export function checkRoom(bytes, offset, length, what) {
  if (!(bytes instanceof Uint8Array)) {
    throw typeError('ERR_RLNC_BAD_INPUT', `${what} must be a Uint8Array`);
  }
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw rangeError('ERR_RLNC_BAD_OFFSET', `${what} offset must be a non-negative integer, got ${String(offset)}`);
  }
  if (offset + length > bytes.length) {
    throw rangeError('ERR_RLNC_BAD_LENGTH', `${what} needs ${length} bytes from offset ${offset}, has ${bytes.length - offset}`);
  }
  return bytes;
}
