// Synchronous encoder/decoder construction on top of @mutp/rlnc. Protocol objects create a
// codec per generation inside nextPacket()/handlePacket(), which are synchronous (sans-IO,
// and the simulator's event loop never yields), so the async backend load happens once here.
import { loadCodec as loadRlnc } from '@mutp/rlnc';

/** @typedef {import('@mutp/rlnc').Encoder} Encoder */
/** @typedef {import('@mutp/rlnc').Decoder} Decoder */

/**
 * @typedef {object} Codec
 * @property {(symbols: number, symbolSize: number, seed: number) => Encoder} encoder
 * @property {(symbols: number, symbolSize: number) => Decoder} decoder
 */

/** @type {Map<string, Promise<Codec>>} */
const cache = new Map();

/**
 * @param {'auto'|'relaxed'|'simd'|'scalar'|'js'} [impl]
 * @returns {Promise<Codec>}
 */
export function loadCodec(impl = 'auto') {
  let p = cache.get(impl);
  if (!p) {
    p = loadRlnc(impl).then((factory) => ({
      encoder: (symbols, symbolSize, seed) => factory.createEncoder({ symbols, symbolSize, seed, systematic: false }),
      decoder: (symbols, symbolSize) => factory.createDecoder({ symbols, symbolSize }),
    }));
    cache.set(impl, p);
  }
  return p;
}
