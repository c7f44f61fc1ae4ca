import assert from 'node:assert/strict';
import { loadCodec, createEncoder } from '../index.js';

describe('loadCodec (synchronous factories)', () => {
  for (const impl of /** @type {const} */ (['js', 'scalar', 'simd'])) {
    it(`${impl}: same payloads as createEncoder, round trip, and validation`, async () => {
      const codec = await loadCodec(impl);
      assert.equal(codec.impl, impl);
      const data = Uint8Array.from({ length: 12 * 100 }, (_, i) => (i * 31 + 7) & 255);
      const enc = codec.createEncoder({ symbols: 12, symbolSize: 100, seed: 42 });
      const ref = await createEncoder({ symbols: 12, symbolSize: 100, seed: 42, impl });
      enc.setSymbols(data);
      ref.setSymbols(data);
      const dec = codec.createDecoder({ symbols: 12, symbolSize: 100 });
      while (!dec.isComplete()) {
        const p = enc.writePayload();
        assert.deepEqual(p, ref.writePayload());
        dec.readPayload(p);
      }
      assert.deepEqual(dec.copySymbols(), data);
      assert.throws(() => codec.createDecoder({ symbols: 0, symbolSize: 100 }), RangeError);
      assert.throws(() => codec.createEncoder({ symbols: 2, symbolSize: 10, impl: impl === 'js' ? 'simd' : 'js' }), TypeError);
      for (const o of [enc, ref, dec]) o.dispose();
    });
  }
});
