import assert from 'node:assert/strict';
import { mul, inv, POLYNOMIAL } from '../src/gf256.js';

/** Bitwise carry-less multiply reduced by 0x11D: independent of the table construction. */
function slowMul(a, b) {
  let r = 0;
  for (let i = 0; i < 8; i++) {
    if (b & (1 << i)) r ^= a << i;
  }
  for (let bit = 14; bit >= 8; bit--) {
    if (r & (1 << bit)) r ^= POLYNOMIAL << (bit - 8);
  }
  return r;
}

describe('GF(2^8) arithmetic (0x11D)', () => {
  it('uses the binary8 polynomial', () => {
    assert.equal(POLYNOMIAL, 0x11d);
  });

  it('table multiply equals carry-less multiply mod 0x11D for all 65536 pairs', () => {
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) assert.equal(mul(a, b), slowMul(a, b), `${a}·${b}`);
    }
  });

  it('known products from the 0x11D field', () => {
    assert.equal(mul(0x80, 2), 0x1d);
    assert.equal(mul(0x53, 0xca), slowMul(0x53, 0xca));
  });

  it('every non-zero element has an inverse; 0 has none', () => {
    for (let a = 1; a < 256; a++) assert.equal(mul(a, inv(a)), 1);
    assert.throws(() => inv(0), RangeError);
  });

  it('2 generates the multiplicative group (order 255)', () => {
    const seen = new Set();
    let x = 1;
    for (let i = 0; i < 255; i++) {
      seen.add(x);
      x = mul(x, 2);
    }
    assert.equal(x, 1);
    assert.equal(seen.size, 255);
  });
});
