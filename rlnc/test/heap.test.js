import assert from 'node:assert/strict';
import { Heap } from '../src/heap.js';
import { createEncoder, createDecoder } from '../index.js';
import { wasmHeapStats } from '../src/wasm-backend.js';

const PAGE = 65536;

describe('rlnc shared WASM heap', () => {
  it('allocates aligned zeroed blocks, reuses and merges freed ones', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
    const heap = new Heap(memory, 100, 4 * PAGE);
    const a = heap.alloc(10);
    const b = heap.alloc(1000);
    const c = heap.alloc(20);
    for (const p of [a, b, c]) assert.equal(p % 16, 0);
    assert.ok(a >= 100 && b >= a + 16 && c >= b + 1000);
    heap.view().fill(0xff, b, b + 1000);
    heap.release(b);
    const b2 = heap.alloc(500);
    assert.equal(b2, b, 'first fit reuses the freed block');
    assert.ok(heap.view().subarray(b2, b2 + 500).every((x) => x === 0), 'reused block is zeroed');
    heap.release(a);
    heap.release(b2);
    heap.release(c);
    assert.equal(heap.free.length, 1, 'everything merged back into one block');
    assert.equal(heap.usedBytes(), 0);
  });

  it('grows the memory, refreshes its view, and stops at the limit with a RangeError', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 4 });
    const heap = new Heap(memory, 0, 4 * PAGE);
    const big = heap.alloc(2 * PAGE);
    assert.ok(memory.buffer.byteLength >= big + 2 * PAGE);
    assert.equal(heap.view().length, memory.buffer.byteLength);
    heap.view()[big] = 1;
    assert.throws(() => heap.alloc(3 * PAGE),
      (/** @type {any} */ err) => err?.code === 'ERR_RLNC_OUT_OF_MEMORY' && err instanceof RangeError);
    assert.equal(heap.view()[big], 1, 'a failed allocation leaves existing blocks alone');
    heap.release(big);
    assert.ok(heap.alloc(3 * PAGE) >= 0, 'fits after the release');
  });

  it('dispose() returns every block: 400 encoders + decoders leave the heap as they found it', async () => {
    for (const flavor of /** @type {const} */ (['relaxed', 'simd', 'scalar'])) {
      const before = await wasmHeapStats(flavor);
      const objs = [];
      for (let i = 0; i < 200; i++) {
        const g = 1 + (i % 255);
        objs.push(await createEncoder({ symbols: g, symbolSize: 1100, seed: i, impl: flavor }));
        objs.push(await createDecoder({ symbols: g, symbolSize: 1100, impl: flavor }));
      }
      const during = await wasmHeapStats(flavor);
      assert.ok(during.usedBytes > before.usedBytes);
      objs.forEach((o) => o.dispose());
      const after = await wasmHeapStats(flavor);
      assert.equal(after.usedBytes, before.usedBytes);
      assert.ok(after.freeBlocks <= before.freeBlocks + 1, `free list fragmented: ${after.freeBlocks} blocks`);
    }
  });
});
