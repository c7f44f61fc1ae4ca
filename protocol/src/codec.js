// Synchronous encoder/decoder construction on top of @mutp/rlnc. Protocol objects create a
// codec per generation inside nextPacket()/handlePacket(), which are synchronous (sans-IO,
// and the simulator's event loop never yields), so the async backend load happens once here.
import { createDecoder, Encoder, Decoder } from '@mutp/rlnc';
import { protocolError } from './errors.js';

/**
 * @typedef {object} Codec
 * @property {(symbols: number, symbolSize: number, seed: number) => Encoder} encoder
 * @property {(symbols: number, symbolSize: number) => Decoder} decoder
 */

/** @type {Map<string, Promise<Codec>>} */
const cache = new Map();

/**
 * @param {'auto'|'simd'|'scalar'|'js'} [impl]
 * @returns {Promise<Codec>}
 */
export function loadCodec(impl = 'auto') {
  let p = cache.get(impl);
  if (!p) {
    p = (async () => {
      // @mutp/rlnc exposes only async factories; the Encoder/Decoder classes take the loaded
      // backend. Borrow it from a probe decoder (see docs/protocol.md, "codec").
      const probe = await createDecoder({ symbols: 1, symbolSize: 1, impl });
      const backend = /** @type {any} */ (probe)._backend;
      probe.dispose();
      if (!backend) throw protocolError('ERR_CODEC_API', '@mutp/rlnc decoder exposes no backend; protocol/src/codec.js needs updating');
      return {
        encoder: (symbols, symbolSize, seed) => new Encoder(backend, { symbols, symbolSize, seed, systematic: false }),
        decoder: (symbols, symbolSize) => new Decoder(backend, { symbols, symbolSize }),
      };
    })();
    cache.set(impl, p);
  }
  return p;
}
