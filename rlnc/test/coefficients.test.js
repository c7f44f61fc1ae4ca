import assert from 'node:assert/strict';
import { CoefficientGenerator } from '../src/coefficients.js';

/**
 * Reference for fill(): ceil(count/4) words of next(), little-endian bytes, the whole vector
 * drawn again while it is all zero.
 * @param {CoefficientGenerator} gen @param {number} count
 */
function referenceVector(gen, count) {
  for (;;) {
    const v = [];
    for (let i = 0; i < count; i += 4) {
      const w = gen.next();
      for (let j = 0; j < 4 && i + j < count; j++) v.push((w >>> (8 * j)) & 0xff);
    }
    if (v.some((b) => b !== 0)) return v;
  }
}

describe('rlnc coefficient generator', () => {
  it('fill() gives the next() stream byte for byte, at any length and offset', () => {
    for (const seed of [0, 1, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER]) {
      const a = new CoefficientGenerator(seed);
      const b = new CoefficientGenerator(seed);
      for (let k = 0; k < 500; k++) {
        const count = 1 + ((k * 7) % 70);
        const out = new Uint8Array(count + 9).fill(0xcc);
        a.fill(out, 5, count);
        assert.deepEqual(Array.from(out.subarray(5, 5 + count)), referenceVector(b, count), `seed ${seed}, vector ${k}`);
        assert.ok(out.subarray(0, 5).every((x) => x === 0xcc) && out.subarray(5 + count).every((x) => x === 0xcc));
      }
    }
  });

  it('redraws all-zero vectors (g=1: about 1 in 256) and stays on the next() stream', () => {
    const a = new CoefficientGenerator(9);
    const b = new CoefficientGenerator(9);
    const out = new Uint8Array(1);
    let redraws = 0;
    for (let k = 0; k < 5000; k++) {
      a.fill(out, 0, 1);
      assert.notEqual(out[0], 0);
      const probe = new CoefficientGenerator(0);
      Object.assign(probe, { s0: b.s0, s1: b.s1, s2: b.s2, s3: b.s3 });
      if ((probe.next() & 0xff) === 0) redraws++;
      assert.equal(out[0], referenceVector(b, 1)[0]);
    }
    assert.ok(redraws > 0, 'the test saw at least one all-zero draw');
  });

  it('the first vector depends on every bit of a 32-bit seed (sources seeded apart code apart from their first packet)', () => {
    for (const g of [1, 2, 4, 24]) {
      const firsts = new Set();
      for (let seed = 1; seed <= 64; seed++) {
        const out = new Uint8Array(g);
        new CoefficientGenerator(seed * 0x9e3779b1 >>> 0).fill(out, 0, g);
        firsts.add(out.join(','));
      }
      assert.ok(firsts.size >= (g === 1 ? 40 : 64), `g=${g}: ${firsts.size} distinct first vectors of 64 seeds`);
    }
  });
});
