import assert from 'node:assert/strict';
import { createEncoder, createDecoder, RankTracker, CoefficientGenerator } from '../index.js';
import { mul } from '../src/gf256.js';
import { testData } from './helpers.js';

/** a·p ⊕ b·q over whole payloads */
function combine(a, p, b, q) {
  return p.map((x, i) => mul(a, x) ^ mul(b, q[i]));
}

describe('rlnc RankTracker (coefficient-only decoding)', () => {
  it('calls a packet innovative exactly when the full decoder does', async () => {
    const size = 8;
    for (const g of [1, 2, 5, 24]) {
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 77 + g });
      enc.setSymbols(testData(g * size, g));
      const dec = await createDecoder({ symbols: g, symbolSize: size });
      const ranks = new RankTracker(g);
      /** @type {Uint8Array<ArrayBufferLike>[]} */
      const seen = [];
      let nonInnovative = 0;
      for (let i = 0; !dec.isComplete() || i < 3 * g; i++) {
        // fresh packets, duplicates, combinations of received ones, sparse vectors
        /** @type {Uint8Array<ArrayBufferLike>} */
        let p = enc.writePayload().slice();
        if (seen.length >= 2 && i % 3 === 1) p = combine(i & 0xff || 1, seen[i % seen.length], 0x35, seen[(i * 7) % seen.length]);
        else if (seen.length > 0 && i % 5 === 2) p = seen[i % seen.length];
        else if (i % 7 === 3) { p = new Uint8Array(g + size); p[i % g] = 1 + (i % 200); }
        seen.push(p);
        const want = dec.readPayload(p);
        if (!want) nonInnovative++;
        assert.equal(ranks.add(p), want, `g=${g} packet ${i}`);
        assert.equal(ranks.rank, dec.rank);
      }
      assert.equal(ranks.isComplete(), true);
      assert.ok(nonInnovative > 0, `g=${g}: the test fed non-innovative packets`);
    }
  });

  it('reads coefficients at an offset, refuses a short buffer, resets', () => {
    const t = new RankTracker(3);
    assert.equal(t.add(Uint8Array.of(9, 9, 1, 0, 0), 2), true);
    assert.equal(t.add(Uint8Array.of(9, 5, 0, 0), 1), false, 'a multiple of the first');
    assert.throws(() => t.add(Uint8Array.of(1, 2), 0), { code: 'ERR_RLNC_BAD_LENGTH' });
    assert.throws(() => new RankTracker(0), { code: 'ERR_RLNC_BAD_SYMBOLS' });
    t.reset();
    assert.equal(t.rank, 0);
    assert.equal(t.add(Uint8Array.of(0, 3, 0)), true);
  });

  it('CoefficientGenerator draws the coefficients an encoder of the same seed sends', async () => {
    const g = 24;
    const enc = await createEncoder({ symbols: g, symbolSize: 16, seed: 12345 });
    enc.setSymbols(testData(g * 16, 3));
    const gen = new CoefficientGenerator(12345);
    const mine = new Uint8Array(g);
    for (let i = 0; i < 50; i++) {
      gen.fill(mine, 0, g);
      assert.deepEqual(mine, enc.writePayload().subarray(0, g), `packet ${i}`);
    }
  });
});
