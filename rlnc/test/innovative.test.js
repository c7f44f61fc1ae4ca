import assert from 'node:assert/strict';
import { createEncoder, createDecoder } from '../index.js';
import { mul } from '../src/gf256.js';
import { ALL_IMPLS, testData } from './helpers.js';

/** a·p ⊕ b·q over whole payloads (coefficients and data alike) */
function combine(a, p, b, q) {
  return p.map((x, i) => mul(a, x) ^ mul(b, q[i]));
}

for (const impl of ALL_IMPLS) {
  describe(`rlnc non-innovative packets (${impl})`, () => {
    it('detects duplicates and linear combinations without changing state', async () => {
      const g = 12;
      const size = 40;
      const data = testData(g * size, 4);
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 9, impl });
      const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
      enc.setSymbols(data);
      const p = enc.writePayload();
      const q = enc.writePayload();
      assert.equal(dec.readPayload(p), true);
      assert.equal(dec.lastInnovative, true);
      assert.equal(dec.readPayload(q), true);
      assert.equal(dec.rank, 2);
      const before = dec.symbols().slice();
      assert.equal(dec.readPayload(p), false, 'duplicate');
      assert.equal(dec.lastInnovative, false);
      assert.equal(dec.readPayload(combine(0x53, p, 0xca, q)), false, 'combination of received packets');
      assert.equal(dec.readPayload(new Uint8Array(g + size)), false, 'all-zero packet');
      assert.equal(dec.rank, 2);
      assert.deepEqual(dec.symbols(), before);
      // a combination involving a fresh packet is innovative
      assert.equal(dec.readPayload(combine(7, p, 1, enc.writePayload())), true);
      assert.equal(dec.rank, 3);
      while (!dec.isComplete()) dec.readPayload(enc.writePayload());
      assert.equal(dec.readPayload(enc.writePayload()), false, 'nothing is innovative after full rank');
      assert.equal(dec.rank, g);
      assert.deepEqual(dec.copySymbols(), data);
    });

    it('zero-copy paths: symbolsView/writePayloadView on the encoder, inputView/readInput on the decoder', async () => {
      const g = 24;
      const size = 1100;
      const data = testData(g * size, 8);
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 3, impl });
      const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
      enc.symbolsView().set(data);
      while (!dec.isComplete()) {
        dec.inputView().set(enc.writePayloadView());
        dec.readInput();
      }
      assert.deepEqual(dec.symbols(), data);
      assert.ok(dec.isSymbolDecoded(0) && dec.isSymbolDecoded(g - 1));
    });
  });
}
