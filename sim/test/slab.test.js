import assert from 'node:assert/strict';
import { createSlabAllocator } from '../src/slab.js';

describe('sim datagram slabs', () => {
  it('gives zeroed views of the asked length that never overlap, across slabs', () => {
    const alloc = createSlabAllocator();
    /** @type {Uint8Array[]} */
    const views = [];
    for (let k = 0; k < 300; k++) {
      const v = alloc(1100 + (k % 40));
      assert.equal(v.length, 1100 + (k % 40));
      assert.ok(v.every((x) => x === 0), `view ${k} is not zeroed`);
      v.fill(k & 0xff || 1);
      views.push(v);
    }
    assert.ok(new Set(views.map((v) => v.buffer)).size > 1, 'the test never crossed a slab');
    views.forEach((v, k) => assert.ok(v.every((x) => x === (k & 0xff || 1)), `view ${k} was overwritten by a later one`));
    assert.equal(alloc(200_000).length, 200_000, 'a request larger than a slab gets its own');
  });
});
