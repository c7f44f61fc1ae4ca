// Byte comparison of a block's copies (the HTTP modes): the plain-JS version browsers take and
// Node's native one agree, at every alignment of either view and wherever the first difference is.
import assert from 'node:assert/strict';
import { sameBytes as sameBytesJs } from '../src/integrity/same-bytes.js';
import { sameBytes as sameBytesNode } from '../src/integrity/same-bytes.node.js';

/** A view of `n` patterned bytes starting `offset` bytes into a larger buffer. @param {number} n @param {number} offset */
function viewAt(n, offset) {
  const buf = new Uint8Array(n + offset + 8).fill(0xee);
  const v = buf.subarray(offset, offset + n);
  for (let i = 0; i < n; i++) v[i] = (i * 37 + 11) & 0xff;
  return v;
}

for (const { name, sameBytes } of [{ name: 'plain JavaScript', sameBytes: sameBytesJs }, { name: 'Node (Buffer.equals)', sameBytes: sameBytesNode }]) {
  describe(`integrity: sameBytes, ${name}`, () => {
    it('finds equal views equal at every pair of alignments and lengths', () => {
      for (const n of [0, 1, 3, 4, 5, 7, 8, 9, 31, 64, 65_536]) {
        for (let oa = 0; oa < 8; oa++) for (let ob = 0; ob < 8; ob++) assert.equal(sameBytes(viewAt(n, oa), viewAt(n, ob)), true, `n ${n} offsets ${oa} ${ob}`);
      }
    });

    it('finds one changed byte wherever it is, at every alignment', () => {
      const n = 37; // a head, whole words and a tail at every offset
      for (let oa = 0; oa < 4; oa++) {
        for (let ob = 0; ob < 4; ob++) {
          for (let at = 0; at < n; at++) {
            const a = viewAt(n, oa);
            const b = viewAt(n, ob);
            b[at] ^= 0x01;
            assert.equal(sameBytes(a, b), false, `offsets ${oa} ${ob}, byte ${at}`);
            assert.equal(sameBytes(b, a), false);
          }
        }
      }
      const big = viewAt(65_536, 1);
      const other = viewAt(65_536, 1);
      other[65_535] ^= 0x80;
      assert.equal(sameBytes(big, other), false, 'the last byte of a block');
    });

    it('compares only the views, not the bytes around them, and not views of other lengths', () => {
      const a = viewAt(16, 3);
      const b = viewAt(16, 3);
      new Uint8Array(b.buffer)[0] = 0; // before the view
      new Uint8Array(b.buffer)[b.byteOffset + 16] = 0; // just after it
      assert.equal(sameBytes(a, b), true);
      assert.equal(sameBytes(a, a.subarray(0, 15)), false);
      assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(1)), false);
    });
  });
}
