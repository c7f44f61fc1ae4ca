import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createEncoder, createDecoder } from '../index.js';
import { ALL_IMPLS, testData } from './helpers.js';

const CASES = [[1, 1], [5, 15], [12, 17], [24, 1100], [64, 33], [255, 16]];

describe('rlnc cross-check: SIMD WASM, scalar WASM and JS agree byte for byte', () => {
  for (const [g, size] of CASES) {
    it(`g=${g}, symbolSize=${size}: same seed gives identical payloads and identical decoder states`, async () => {
      const data = testData(g * size, g + size);
      const encs = await Promise.all(ALL_IMPLS.map((impl) => createEncoder({ symbols: g, symbolSize: size, seed: 77, impl })));
      const decs = await Promise.all(ALL_IMPLS.map((impl) => createDecoder({ symbols: g, symbolSize: size, impl })));
      encs.forEach((e) => e.setSymbols(data));
      for (let n = 0; n < g + 3; n++) {
        const pkts = encs.map((e) => e.writePayload());
        for (let k = 1; k < pkts.length; k++) {
          assert.deepEqual(pkts[k], pkts[0], `packet ${n}: ${ALL_IMPLS[k]} differs from ${ALL_IMPLS[0]}`);
        }
        const innovative = decs.map((d) => d.readPayload(pkts[0]));
        assert.deepEqual(innovative, innovative.map(() => innovative[0]));
        // RREF is canonical, so the whole decoder state matches after every packet
        const states = decs.map((d) => d.symbols());
        for (let k = 1; k < states.length; k++) assert.deepEqual(states[k], states[0]);
      }
      for (const d of decs) assert.deepEqual(d.copySymbols(), data);
      [...encs, ...decs].forEach((o) => o.dispose());
    });
  }

  it('a fixed seed gives a fixed coefficient stream (wire compatibility across versions)', async () => {
    // pinned output of xoshiro128** seeded by fmix32 (src/coefficients.js); a change here
    // breaks interop between proxies and clients of different versions
    const expected = [165, 41, 36, 118, 160, 153, 99, 227];
    for (const impl of ALL_IMPLS) {
      const enc = await createEncoder({ symbols: 8, symbolSize: 1, seed: 1, impl });
      enc.setSymbols(new Uint8Array(8));
      assert.deepEqual(Array.from(enc.writePayload().subarray(0, 8)), expected, impl);
      enc.dispose();
    }
  });

  it('pinned coefficient streams: every build draws the same 600 vectors per seed and g (g=1 includes redraws)', async () => {
    // SHA-256 (first 8 bytes) of the coefficients of packets 1..600, taken from the JS generator
    // when it was the only one; the WASM builds now draw them in C (csrc/rlnc.c). Large seeds set
    // the high word; at g=1 every seed here meets 2-4 all-zero draws, which must be redrawn.
    /** @type {Array<[number, number, string]>} seed, g, digest */
    const PINNED = [
      [0, 1, 'dbcc08ffdaae7224'], [0, 3, '0106d1a9a3b17850'], [0, 24, 'a39dc8c928d12be1'], [0, 255, 'ed5b7eb569b5de11'],
      [1, 1, 'dfad4a9fd7accd0e'], [1, 3, 'a27177084c82f527'], [1, 24, 'd82473519420c2a1'], [1, 255, 'a14982e0af16aa1e'],
      [2 ** 32 + 5, 1, '935961e05f8f13b9'], [2 ** 32 + 5, 3, '9aceb16dcc31a00e'], [2 ** 32 + 5, 24, 'b7bf8a6cb946a841'],
      [2 ** 32 + 5, 255, '40031818378bda68'], [Number.MAX_SAFE_INTEGER, 1, '067c45230a5835a1'],
      [Number.MAX_SAFE_INTEGER, 3, 'c7b6c7c0e30fc423'], [Number.MAX_SAFE_INTEGER, 24, 'a5f9b2b396496bae'],
      [Number.MAX_SAFE_INTEGER, 255, '1c99e6a2cf456968'],
    ];
    for (const impl of ALL_IMPLS) {
      for (const [seed, g, digest] of PINNED) {
        const enc = await createEncoder({ symbols: g, symbolSize: 1, seed, impl });
        enc.setSymbols(new Uint8Array(g));
        const h = createHash('sha256');
        for (let i = 0; i < 600; i++) h.update(enc.writePayload().subarray(0, g));
        enc.dispose();
        assert.equal(h.digest('hex').slice(0, 16), digest, `${impl}, seed ${seed}, g=${g}`);
      }
    }
  });
});

describe('rlnc seeds', () => {
  it('different seeds give different coefficient streams', async () => {
    const g = 24;
    const seen = new Set();
    for (const seed of [0, 1, 2, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]) {
      const enc = await createEncoder({ symbols: g, symbolSize: 1, seed, impl: 'simd' });
      enc.setSymbols(new Uint8Array(g));
      const coeffs = [];
      for (let i = 0; i < 4; i++) coeffs.push(...enc.writePayload().subarray(0, g));
      seen.add(coeffs.join(','));
      enc.dispose();
    }
    assert.equal(seen.size, 6);
  });

  it('packets from encoders with different seeds (different proxies) combine to full rank', async () => {
    const g = 24;
    const size = 100;
    const data = testData(g * size, 3);
    const seeds = [11, 12, 13, 14];
    const encs = await Promise.all(seeds.map((seed) => createEncoder({ symbols: g, symbolSize: size, seed, impl: 'simd' })));
    encs.forEach((e) => e.setSymbols(data));
    const dec = await createDecoder({ symbols: g, symbolSize: size, impl: 'simd' });
    let n = 0;
    while (!dec.isComplete()) {
      dec.readPayload(encs[n % encs.length].writePayload());
      n++;
      assert.ok(n <= g + 4, `rank ${dec.rank} after ${n} packets`);
    }
    assert.deepEqual(dec.copySymbols(), data);
  });

  it('rejects seeds that are not non-negative safe integers', async () => {
    for (const seed of [-1, 1.5, '7', 2 ** 53, NaN]) {
      await assert.rejects(createEncoder({ symbols: 2, symbolSize: 2, seed: /** @type {any} */ (seed) }),
        (/** @type {any} */ err) => err?.code === 'ERR_RLNC_BAD_SEED' && err instanceof TypeError);
    }
  });
});
