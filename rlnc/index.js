// @mutp/rlnc: random linear network coding over GF(2^8) (polynomial 0x11D, Kodo's binary8).
// See README.md for the API, the field, the coefficient generator and performance.
import { checkShape } from './src/limits.js';
import { normalizeSeed } from './src/coefficients.js';
import { getBackend } from './src/backends.js';
import { Encoder } from './src/encoder.js';
import { Decoder } from './src/decoder.js';

export { MAX_SYMBOLS, MAX_SYMBOL_SIZE } from './src/limits.js';
export { POLYNOMIAL } from './src/gf256.js';
export { IMPLEMENTATIONS, bestImplementation } from './src/backends.js';
export { Encoder, Decoder };

/**
 * @typedef {object} EncoderOptions
 * @property {number} symbols g, 1..255
 * @property {number} symbolSize bytes per symbol, 1..MAX_SYMBOL_SIZE
 * @property {number} [seed] non-negative safe integer; omitted = random
 * @property {boolean} [systematic] send the g source symbols uncoded first (default false)
 * @property {'auto'|'relaxed'|'simd'|'scalar'|'js'} [impl] default 'auto' (fastest available)
 */

/**
 * @param {EncoderOptions} opts
 * @returns {Promise<Encoder>}
 */
export async function createEncoder(opts) {
  const shape = checkShape(opts);
  const seed = normalizeSeed(opts.seed);
  const backend = await getBackend(opts.impl);
  return new Encoder(backend, { ...shape, seed, systematic: opts.systematic === true });
}

/**
 * @typedef {object} DecoderOptions
 * @property {number} symbols g, 1..255
 * @property {number} symbolSize bytes per symbol, 1..MAX_SYMBOL_SIZE
 * @property {'auto'|'relaxed'|'simd'|'scalar'|'js'} [impl] default 'auto' (fastest available)
 */

/**
 * @param {DecoderOptions} opts
 * @returns {Promise<Decoder>}
 */
export async function createDecoder(opts) {
  const shape = checkShape(opts);
  const backend = await getBackend(opts.impl);
  return new Decoder(backend, shape);
}
