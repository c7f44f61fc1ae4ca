import assert from 'node:assert/strict';
import { createEncoder } from '../index.js';
import { pooledCopy } from '../src/payload-pool.js';
import { ALL_IMPLS, testData } from './helpers.js';

describe('rlnc writePayload copies (pooled)', () => {
  for (const impl of ALL_IMPLS) {
    it(`${impl}: every packet keeps its own bytes across later writes, beyond one slab`, async () => {
      const g = 24;
      const size = 1100;
      const data = testData(g * size, 6);
      const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 5, impl });
      const twin = await createEncoder({ symbols: g, symbolSize: size, seed: 5, impl });
      enc.setSymbols(data);
      twin.setSymbols(data);
      // js is ~100x slower: fewer packets, still more than the 58 of one 64 KiB slab
      const n = impl === 'js' ? 70 : 150;
      const kept = [];
      const expected = [];
      for (let i = 0; i < n; i++) {
        kept.push(enc.writePayload());
        const own = new Uint8Array(twin.payloadSize);
        twin.writePayloadInto(own);
        expected.push(own);
      }
      kept[0].fill(0xab); // writing one packet must not touch its neighbours
      expected[0].fill(0xab);
      for (let i = 0; i < n; i++) {
        assert.equal(kept[i].length, enc.payloadSize);
        assert.deepEqual(kept[i], expected[i], `packet ${i}`);
      }
      enc.dispose();
      twin.dispose();
    });
  }

  it('pooledCopy: copies of mixed sizes never overlap; large ones get a buffer of their own', () => {
    const copies = [];
    const sources = [];
    for (let i = 0; i < 300; i++) {
      const src = testData(1 + ((i * 997) % 3000), i + 1);
      sources.push(src);
      copies.push(pooledCopy(src));
    }
    for (const c of copies) c.reverse(); // a write through any copy shows up in an overlapping one
    copies.forEach((c, i) => assert.deepEqual(c, sources[i].slice().reverse(), `copy ${i}`));
    const big = testData(20000, 3);
    const own = pooledCopy(big);
    assert.deepEqual(own, big);
    assert.equal(own.buffer.byteLength, big.length);
  });
});
