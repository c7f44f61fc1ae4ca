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
    // pinned output of xoshiro128** seeded by fmix32 (src/coefficients.js). Coefficients travel
    // with each coded packet, so proxies and clients of different versions still interoperate;
    // the pin keeps the builds (and the simulator's runs) drawing one stream
    const expected = [123, 67, 213, 250, 65, 87, 185, 252];
    for (const impl of ALL_IMPLS) {
      const enc = await createEncoder({ symbols: 8, symbolSize: 1, seed: 1, impl });
      enc.setSymbols(new Uint8Array(8));
      assert.deepEqual(Array.from(enc.writePayload().subarray(0, 8)), expected, impl);
      enc.dispose();
    }
  });

  it('pinned coefficient streams: every build draws the same 600 vectors per seed and g (g=1 includes redraws)', async () => {
    // SHA-256 (first 8 bytes) of the coefficients of packets 1..600, taken from the JS generator
    // (seeding since s1 mixes in the low word); the WASM builds draw them in C (csrc/rlnc.c). Large
    // seeds set the high word; at g=1 a seed meets a few all-zero draws in 600, which must be redrawn.
    /** @type {Array<[number, number, string]>} seed, g, digest */
    const PINNED = [
      [0, 1, '1d961b67100c9f28'], [0, 3, '422d1f5de245dde5'], [0, 24, 'afe97d673170a52f'], [0, 255, '2f07f8df146a349b'],
      [1, 1, '5bfb5d35f7d28fba'], [1, 3, 'ae72c1258a028437'], [1, 24, '484cba2de4f15e8d'], [1, 255, 'c420f28226438c86'],
      [2 ** 32 + 5, 1, 'a39beb587cf139a6'], [2 ** 32 + 5, 3, '84ff3aea462c9297'], [2 ** 32 + 5, 24, '843cc98c81c0c535'],
      [2 ** 32 + 5, 255, '328a7cf7c046a843'], [Number.MAX_SAFE_INTEGER, 1, '80f3105bfb0c470a'],
      [Number.MAX_SAFE_INTEGER, 3, '67c66e2204613c9c'], [Number.MAX_SAFE_INTEGER, 24, '4b4a8eadab6bb9be'],
      [Number.MAX_SAFE_INTEGER, 255, 'a6acd4c3e83738c0'],
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
