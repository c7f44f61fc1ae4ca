import assert from 'node:assert/strict';
import { createEncoder, createDecoder, MAX_SYMBOLS, MAX_SYMBOL_SIZE } from '../index.js';
import { ALL_IMPLS, testData } from './helpers.js';

/** @param {string} code */
const rangeErr = (code) => (/** @type {any} */ err) => err?.code === code && err instanceof RangeError;
/** @param {string} code */
const typeErr = (code) => (/** @type {any} */ err) => err?.code === code && err instanceof TypeError;

describe('rlnc refuses malformed parameters', () => {
  for (const create of [createEncoder, createDecoder]) {
    const name = create === createEncoder ? 'createEncoder' : 'createDecoder';
    it(`${name}: bad symbols / symbolSize / impl`, async () => {
      await assert.rejects(create({ symbols: 0, symbolSize: 10 }), rangeErr('ERR_RLNC_BAD_SYMBOLS'));
      await assert.rejects(create({ symbols: MAX_SYMBOLS + 1, symbolSize: 10 }), rangeErr('ERR_RLNC_BAD_SYMBOLS'));
      await assert.rejects(create({ symbols: 2.5, symbolSize: 10 }), typeErr('ERR_RLNC_BAD_SYMBOLS'));
      await assert.rejects(create({ symbols: /** @type {any} */ ('4'), symbolSize: 10 }), typeErr('ERR_RLNC_BAD_SYMBOLS'));
      await assert.rejects(create({ symbols: 4, symbolSize: 0 }), rangeErr('ERR_RLNC_BAD_SYMBOL_SIZE'));
      await assert.rejects(create({ symbols: 4, symbolSize: MAX_SYMBOL_SIZE + 1 }), rangeErr('ERR_RLNC_BAD_SYMBOL_SIZE'));
      await assert.rejects(create({ symbols: 4, symbolSize: 2 ** 32 }), rangeErr('ERR_RLNC_BAD_SYMBOL_SIZE'));
      await assert.rejects(create({ symbols: 4, symbolSize: NaN }), typeErr('ERR_RLNC_BAD_SYMBOL_SIZE'));
      await assert.rejects(create(/** @type {any} */ (null)), typeErr('ERR_RLNC_BAD_OPTIONS'));
      await assert.rejects(create({ symbols: 4, symbolSize: 4, impl: /** @type {any} */ ('gpu') }), typeErr('ERR_RLNC_BAD_IMPL'));
    });
  }
});

for (const impl of ALL_IMPLS) {
  describe(`rlnc refuses malformed input without corrupting state (${impl})`, () => {
    it('decoder: wrong length or type throws, state unchanged, decoding still succeeds', async () => {
      const g = 12;
      const size = 17;
      const data = testData(g * size, 6);
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 1, impl });
      const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
      enc.setSymbols(data);
      for (let i = 0; i < 5; i++) dec.readPayload(enc.writePayload());
      const rank = dec.rank;
      const before = dec.symbols().slice();
      const good = enc.writePayload();
      assert.throws(() => dec.readPayload(good.subarray(0, good.length - 1)), rangeErr('ERR_RLNC_BAD_LENGTH'));
      assert.throws(() => dec.readPayload(new Uint8Array(good.length + 1)), rangeErr('ERR_RLNC_BAD_LENGTH'));
      assert.throws(() => dec.readPayload(new Uint8Array(0)), rangeErr('ERR_RLNC_BAD_LENGTH'));
      assert.throws(() => dec.readPayload(/** @type {any} */ (Array.from(good))), typeErr('ERR_RLNC_BAD_INPUT'));
      assert.throws(() => dec.readPayload(/** @type {any} */ (good.buffer)), typeErr('ERR_RLNC_BAD_INPUT'));
      assert.throws(() => dec.readPayload(/** @type {any} */ (null)), typeErr('ERR_RLNC_BAD_INPUT'));
      assert.equal(dec.rank, rank);
      assert.deepEqual(dec.symbols(), before);
      assert.throws(() => dec.copySymbols(), (/** @type {any} */ err) => err.code === 'ERR_RLNC_INCOMPLETE');
      dec.readPayload(good);
      while (!dec.isComplete()) dec.readPayload(enc.writePayload());
      assert.deepEqual(dec.copySymbols(), data);
    });

    it('encoder: wrong symbol data length, payload before data, use after dispose', async () => {
      const enc = await createEncoder({ symbols: 4, symbolSize: 8, seed: 1, impl });
      assert.throws(() => enc.writePayload(), (/** @type {any} */ err) => err.code === 'ERR_RLNC_NO_SYMBOLS');
      assert.throws(() => enc.setSymbols(new Uint8Array(31)), rangeErr('ERR_RLNC_BAD_LENGTH'));
      assert.throws(() => enc.setSymbols(/** @type {any} */ ('x'.repeat(32))), typeErr('ERR_RLNC_BAD_INPUT'));
      enc.setSymbols(new Uint8Array(32));
      assert.equal(enc.writePayload().length, 4 + 8);
      enc.dispose();
      enc.dispose(); // idempotent
      assert.throws(() => enc.writePayload(), (/** @type {any} */ err) => err.code === 'ERR_RLNC_DISPOSED');
      const dec = await createDecoder({ symbols: 4, symbolSize: 8, impl });
      dec.dispose();
      assert.throws(() => dec.readPayload(new Uint8Array(12)), (/** @type {any} */ err) => err.code === 'ERR_RLNC_DISPOSED');
    });
  });
}
