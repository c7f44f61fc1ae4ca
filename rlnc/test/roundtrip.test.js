import assert from 'node:assert/strict';
import { createEncoder, createDecoder } from '../index.js';
import { ALL_IMPLS, testData } from './helpers.js';

const GENERATIONS = [1, 2, 12, 24, 64, 255];
const SIZES = [1, 15, 16, 17, 100, 1100];

/**
 * @param {any} impl @param {number} g @param {number} size @param {number} seed
 * @param {boolean} [systematic]
 */
async function roundTrip(impl, g, size, seed, systematic = false) {
  const data = testData(g * size, g * 1000 + size);
  const enc = await createEncoder({ symbols: g, symbolSize: size, seed, impl, systematic });
  const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
  enc.setSymbols(data);
  let packets = 0;
  while (!dec.isComplete()) {
    assert.ok(packets < g + 40, `rank stuck at ${dec.rank} of ${g}`);
    const pkt = enc.writePayload();
    assert.equal(pkt.length, g + size);
    dec.readPayload(pkt);
    packets++;
  }
  assert.deepEqual(dec.copySymbols(), data);
  enc.dispose();
  dec.dispose();
  return packets;
}

for (const impl of ALL_IMPLS) {
  describe(`rlnc round trip (${impl})`, () => {
    for (const g of GENERATIONS) {
      const sizes = impl === 'js' && g === 255 ? [1, 17] : SIZES;
      it(`g=${g}, sizes ${sizes.join('/')}`, async () => {
        for (const size of sizes) await roundTrip(impl, g, size, g + size);
      });
    }

    it('systematic mode: first g packets are the source symbols, decoded one by one', async () => {
      const g = 12;
      const size = 33;
      const data = testData(g * size, 9);
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 5, impl, systematic: true });
      const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
      enc.setSymbols(data);
      for (let i = 0; i < g; i++) {
        const pkt = enc.writePayload();
        const unit = new Uint8Array(g);
        unit[i] = 1;
        assert.deepEqual(pkt.subarray(0, g), unit);
        assert.deepEqual(pkt.subarray(g), data.subarray(i * size, (i + 1) * size));
        assert.equal(dec.readPayload(pkt), true);
        assert.equal(dec.isSymbolDecoded(i), true);
      }
      assert.deepEqual(dec.copySymbols(), data);
      const coded = enc.writePayload();
      assert.ok(coded.subarray(0, g).some((c, i) => c !== 0 && c !== (i === 0 ? 1 : 0)));
    });
  });
}
