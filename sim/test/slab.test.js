import assert from 'node:assert/strict';
import { createSlabAllocator } from '../src/slab.js';

describe('sim datagram slabs', () => {
  it('gives views of the asked length that never overlap within a run, across slabs', () => {
    const { alloc, release } = createSlabAllocator();
    /** @type {Uint8Array[]} */
    const views = [];
    for (let k = 0; k < 300; k++) {
      const v = alloc(1100 + (k % 40));
      assert.equal(v.length, 1100 + (k % 40));
      v.fill(k & 0xff || 1);
      views.push(v);
    }
    assert.ok(new Set(views.map((v) => v.buffer)).size > 1, 'the test never crossed a slab');
    views.forEach((v, k) => assert.ok(v.every((x) => x === (k & 0xff || 1)), `view ${k} was overwritten by a later one`));
    assert.equal(alloc(200_000).length, 200_000, 'a request larger than a slab gets its own');
    release();
  });

  it('a released run\'s slabs serve the next run; two live runs never share one', () => {
    const a = createSlabAllocator();
    const b = createSlabAllocator();
    const bufsA = new Set(Array.from({ length: 200 }, () => a.alloc(1140).buffer));
    const bufsB = new Set(Array.from({ length: 200 }, () => b.alloc(1140).buffer));
    for (const x of bufsB) assert.ok(!bufsA.has(x), 'two live runs share a slab');
    a.release();
    const c = createSlabAllocator();
    const bufsC = new Set(Array.from({ length: 200 }, () => c.alloc(1140).buffer));
    assert.ok([...bufsC].some((x) => bufsA.has(x)), 'the released slabs were not reused');
    for (const x of bufsC) assert.ok(!bufsB.has(x), 'a live run\'s slab was handed out again');
    b.release();
    c.release();
  });
});
