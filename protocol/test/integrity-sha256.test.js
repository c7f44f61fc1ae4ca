// The plain-JS SHA-256 the browser receiver uses: FIPS 180-4 / NIST vectors, every padding
// boundary, and agreement with node:crypto (which Node uses through the "#sha256" condition).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256, sha256Async } from '../src/integrity/sha256.js';
import { sha256 as sha256Node } from '../src/integrity/sha256.node.js';

const hex = (/** @type {Uint8Array} */ b) => Buffer.from(b).toString('hex');
const ascii = (/** @type {string} */ s) => new TextEncoder().encode(s);

describe('integrity: SHA-256 in plain JavaScript', () => {
  it('matches the FIPS 180-4 / NIST test vectors', () => {
    assert.equal(hex(sha256(ascii(''))), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(hex(sha256(ascii('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(hex(sha256(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    assert.equal(hex(sha256(new Uint8Array(1_000_000).fill(0x61))), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('agrees with node:crypto at every padding boundary and on generation-sized inputs', () => {
    for (const n of [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1100, 26_400]) {
      const b = new Uint8Array(n);
      for (let i = 0; i < n; i++) b[i] = (i * 131 + n) & 0xff;
      const want = createHash('sha256').update(b).digest('hex');
      assert.equal(hex(sha256(b)), want, `length ${n}`);
      assert.equal(hex(sha256Node(b)), want);
    }
  });

  it('hashes a subarray, not its whole buffer', () => {
    const b = new Uint8Array(100).fill(7);
    assert.equal(hex(sha256(b.subarray(10, 20))), hex(sha256(new Uint8Array(10).fill(7))));
  });

  it('the WebCrypto one (sha256Async, Node has WebCrypto too) gives the same digests, of a subarray too', async () => {
    assert.ok(sha256Async, 'WebCrypto is there');
    const b = new Uint8Array(70_000);
    for (let i = 0; i < b.length; i++) b[i] = (i * 131) & 0xff;
    for (const part of [b, b.subarray(0, 0), b.subarray(5, 69), b.subarray(1000, 66_536)]) {
      assert.equal(hex(await sha256Async(part)), hex(sha256(part)), `length ${part.length}`);
    }
  });
});
