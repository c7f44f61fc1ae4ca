import assert from 'node:assert/strict';
import { createEncoder, createDecoder, bestImplementation } from '../index.js';
import { testData } from './helpers.js';

/** Rank statistics depend only on the coefficients, so a tiny symbol keeps 10,000 trials fast. */
const SYMBOL_SIZE = 4;

describe('rlnc rank statistics', () => {
  it('auto picks the relaxed-SIMD build when the engine accepts it (helpers.js makes sure it does)', async () => {
    assert.equal(await bestImplementation(), 'relaxed');
  });

  it('g=24: full rank within g+2 packets in >= 99% of 10,000 trials', async () => {
    const g = 24;
    const trials = 10000;
    const data = testData(g * SYMBOL_SIZE);
    let ok = 0;
    for (let t = 0; t < trials; t++) {
      const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: t, impl: 'simd' });
      const dec = await createDecoder({ symbols: g, symbolSize: SYMBOL_SIZE, impl: 'simd' });
      enc.setSymbols(data);
      for (let i = 0; i < g + 2 && !dec.isComplete(); i++) dec.readPayload(enc.writePayloadView());
      if (dec.isComplete()) ok++;
      enc.dispose();
      dec.dispose();
    }
    // theory for GF(256): P(full rank after g+2) ≈ 1 - 1/256^3, so essentially every trial
    assert.ok(ok >= 0.99 * trials, `${ok} of ${trials} trials reached rank ${g} within ${g + 2} packets`);
  });

  it('g=64 and g=255 reach full rank (a GF(2)-linear generator capped g=64 at rank 32)', async () => {
    for (const g of [64, 255]) {
      for (let seed = 0; seed < 3; seed++) {
        const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed, impl: 'simd' });
        const dec = await createDecoder({ symbols: g, symbolSize: SYMBOL_SIZE, impl: 'simd' });
        enc.setSymbols(testData(g * SYMBOL_SIZE, seed));
        let n = 0;
        while (!dec.isComplete() && n < g + 10) { dec.readPayload(enc.writePayloadView()); n++; }
        assert.equal(dec.rank, g, `g=${g} seed=${seed}: rank ${dec.rank} after ${n} packets`);
        enc.dispose();
        dec.dispose();
      }
    }
  });
});
