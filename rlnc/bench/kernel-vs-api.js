// The bare kernels and the public API on the same work, for the "API speed / kernel speed" ratio
// of bench-codec.js. Kernel = the backend's encode/decode on coefficients and packets already in
// codec memory; API = what the protocol calls per packet.
import { createEncoder, loadCodec } from '../index.js';
import { getBackend } from '../src/backends.js';
import { CoefficientGenerator } from '../src/coefficients.js';
import { align } from '../src/align.js';

/** Coefficient vectors cycled through by the encode kernel (drawn by the real generator). */
const COEFF_VECTORS = 64;
/** Pre-encoded packets per decode generation: g plus a margin for non-innovative ones. */
const EXTRA_PACKETS = 16;
/** Packets per timed encode op, so the clock is read rarely. */
const ENCODE_BATCH = 16;
/** Bytes before the payload in a coded datagram (protocol's CODED_HEADER_BYTES), for writePayloadInto. */
const DATAGRAM_HEADER_BYTES = 16;

/** @param {number} n */
export function sampleData(n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 167 + 13) & 0xff;
  return out;
}

/**
 * @param {'relaxed'|'simd'|'scalar'|'js'} impl
 * @param {number} g
 * @param {number} size
 * @returns {Promise<{encode: Record<string, () => number>, decode: Record<string, () => number>, dispose: () => void}>}
 *   ops that return the bytes they produced (encode: coded bytes; decode: g·size per generation)
 */
export async function kernelVsApi(impl, g, size) {
  const backend = await getBackend(impl);
  const codec = await loadCodec(impl);
  const data = sampleData(g * size);
  const payloadSize = g + size;
  const packets = g + EXTRA_PACKETS;

  // packets for the decoders: a different seed than the encoders, as from another proxy
  const ref = await createEncoder({ symbols: g, symbolSize: size, seed: 2, impl: 'js' });
  ref.setSymbols(data);
  const payloads = Array.from({ length: packets }, () => ref.writePayload());
  ref.dispose();

  // kernel memory: symbols | coefficient vectors | output | packets | cm | dm | piv | row
  const sym = 0;
  const coefs = align(g * size);
  const out = coefs + align(COEFF_VECTORS * g);
  const pk = out + align(size);
  const cm = pk + align(packets * payloadSize);
  const dm = cm + align(g * g);
  const piv = dm + align(g * size);
  const row = piv + align(g);
  const arena = backend.arena(row + payloadSize);
  const b = arena.base;
  let mem = arena.mem();
  mem.set(data, b + sym);
  const gen = new CoefficientGenerator(1);
  for (let v = 0; v < COEFF_VECTORS; v++) gen.fill(mem, b + coefs + v * g, g);
  payloads.forEach((p, i) => mem.set(p, b + pk + i * payloadSize));

  let n = 0;
  const kernelEncode = () => {
    mem = arena.mem(); // another codec may have grown the memory
    for (let i = 0; i < ENCODE_BATCH; i++, n++) {
      backend.encode(mem, b + out, b + sym, b + coefs + (n % COEFF_VECTORS) * g, g, size);
    }
    return ENCODE_BATCH * size;
  };
  const kernelDecode = () => {
    mem = arena.mem();
    mem.fill(0, b + cm, b + row);
    let rank = 0;
    for (let p = 0; rank < g; p++) {
      mem.copyWithin(b + row, b + pk + p * payloadSize, b + pk + (p + 1) * payloadSize);
      if (backend.decode(mem, b + cm, b + dm, b + piv, b + row, g, size) >= 0) rank++;
    }
    return g * size;
  };

  const enc = codec.createEncoder({ symbols: g, symbolSize: size, seed: 1 });
  enc.setSymbols(data);
  const datagram = new Uint8Array(DATAGRAM_HEADER_BYTES + payloadSize);
  let sink = 0;
  /** @param {() => void} write */
  const batch = (write) => () => {
    for (let i = 0; i < ENCODE_BATCH; i++) write();
    return ENCODE_BATCH * size;
  };
  /** one generation to full rank with a new decoder, as protocol/src/coded-receiver.js does it */
  const apiDecode = () => {
    const dec = codec.createDecoder({ symbols: g, symbolSize: size });
    for (let i = 0; !dec.isComplete(); i++) dec.readPayload(payloads[i]);
    sink ^= dec.symbols()[0];
    dec.dispose();
    return g * size;
  };
  return {
    encode: {
      kernel: kernelEncode,
      writePayload: batch(() => { sink ^= enc.writePayload()[0]; }),
      writePayloadInto: batch(() => { enc.writePayloadInto(datagram, DATAGRAM_HEADER_BYTES); }),
      writePayloadView: batch(() => { sink ^= enc.writePayloadView()[0]; }),
    },
    decode: { kernel: kernelDecode, readPayload: apiDecode },
    dispose() {
      if (sink === -1) console.log(sink); // keeps the results observable
      enc.dispose();
      arena.free();
    },
  };
}
