// @mutp/rlnc: random linear network coding over GF(2^8) (polynomial 0x11D, Kodo's binary8).
// See README.md for the API, the field, the coefficient generator and performance.
import { checkShape } from './src/limits.js';
import { normalizeSeed } from './src/coefficients.js';
import { getBackend } from './src/backends.js';
import { Encoder } from './src/encoder.js';
import { Decoder } from './src/decoder.js';

export { MAX_SYMBOLS, MAX_SYMBOL_SIZE } from './src/limits.js';
export { POLYNOMIAL, MUL as GF256_MUL } from './src/gf256.js';
export { IMPLEMENTATIONS, bestImplementation } from './src/backends.js';
export { Encoder, Decoder };
export { RankTracker } from './src/rank-tracker.js';
export { CoefficientGenerator } from './src/coefficients.js';

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

/**
 * @typedef {object} CodecFactory
 * @property {'relaxed'|'simd'|'scalar'|'js'} impl  the implementation behind it
 * @property {(opts: EncoderOptions) => Encoder} createEncoder  synchronous, validated like createEncoder()
 * @property {(opts: DecoderOptions) => Decoder} createDecoder  synchronous, validated like createDecoder()
 */

/**
 * Load an implementation once, then create encoders and decoders synchronously. For callers
 * that make a codec per generation inside synchronous code (the sans-IO protocol objects).
 * @param {'auto'|'relaxed'|'simd'|'scalar'|'js'} [impl] default 'auto'
 * @returns {Promise<CodecFactory>}
 */
export async function loadCodec(impl = 'auto') {
  const backend = await getBackend(impl);
  return {
    impl: backend.name,
    createEncoder(opts) {
      const shape = checkShape(opts);
      if (opts.impl !== undefined && opts.impl !== 'auto' && opts.impl !== backend.name) {
        throw new TypeError(`this factory is for impl '${backend.name}', not '${opts.impl}'`);
      }
      return new Encoder(backend, { ...shape, seed: normalizeSeed(opts.seed), systematic: opts.systematic === true });
    },
    createDecoder(opts) {
      return new Decoder(backend, checkShape(opts));
    },
  };
}
