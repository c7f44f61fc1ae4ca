// WebAssembly backends (relaxed-SIMD, SIMD128 and scalar builds of csrc/rlnc.c). Each module is compiled and
// instantiated once per process; all its encoders/decoders share its memory through a Heap.
import { loadWasmBytes } from '#wasm-bytes';
import { Heap } from './heap.js';

/** @typedef {import('./backend-types.js').Backend} Backend */

/** @type {Map<string, Promise<Backend>>} flavor → backend */
const cache = new Map();

/**
 * @param {'relaxed'|'simd'|'scalar'} flavor
 * @param {Uint8Array} bytes
 * @returns {Promise<Backend>}
 */
async function instantiate(flavor, bytes) {
  const { instance } = await WebAssembly.instantiate(/** @type {BufferSource} */ (bytes), {});
  const ex = /** @type {any} */ (instance.exports);
  const memory = /** @type {WebAssembly.Memory} */ (ex.memory);
  ex.rlnc_init();
  const heap = new Heap(memory, ex.__heap_base.value, ex.rlnc_max_memory());
  const encodeFn = ex.rlnc_encode;
  const encodeNextFn = ex.rlnc_encode_next;
  const decodeFn = ex.rlnc_decode;
  /** @type {Backend} */
  const backend = {
    name: flavor,
    arena(bytes) {
      let ptr = heap.alloc(bytes);
      return {
        base: ptr,
        mem: () => heap.view(),
        free() {
          if (ptr < 0) return;
          heap.release(ptr);
          ptr = -1;
        },
      };
    },
    encode: (_mem, out, symbols, coeffs, g, size) => encodeFn(out, symbols, coeffs, g, size),
    encodeNext: (_mem, out, symbols, state, g, size) => encodeNextFn(out, symbols, state, g, size),
    decode: (_mem, cm, dm, piv, row, g, size) => decodeFn(cm, dm, piv, row, g, size),
  };
  heaps.set(backend, heap);
  return backend;
}

/** Heap of each WASM backend, for tests and diagnostics. @type {WeakMap<Backend, Heap>} */
const heaps = new WeakMap();

/**
 * @param {'relaxed'|'simd'|'scalar'} flavor
 * @returns {Promise<{usedBytes: number, memoryBytes: number, freeBlocks: number}>}
 */
export async function wasmHeapStats(flavor) {
  const heap = heaps.get(await loadWasmBackend(flavor));
  if (!heap) throw new Error(`no heap recorded for the ${flavor} WASM backend`); // every loaded backend records one
  return { usedBytes: heap.usedBytes(), memoryBytes: heap.memory.buffer.byteLength, freeBlocks: heap.free.length };
}

/**
 * @param {'relaxed'|'simd'|'scalar'} flavor
 * @returns {Promise<Backend>}
 */
export function loadWasmBackend(flavor) {
  let p = cache.get(flavor);
  if (!p) {
    p = loadWasmBytes(flavor).then((bytes) => instantiate(flavor, bytes));
    cache.set(flavor, p);
    p.catch(() => cache.delete(flavor));
  }
  return p;
}

/**
 * Feature detection: whether this engine accepts the module (SIMD128 for 'simd', plus relaxed
 * SIMD for 'relaxed').
 * @param {'relaxed'|'simd'|'scalar'} flavor
 * @returns {Promise<boolean>}
 */
export async function wasmSupported(flavor) {
  if (typeof WebAssembly !== 'object') return false;
  try {
    return WebAssembly.validate(/** @type {BufferSource} */ (await loadWasmBytes(flavor)));
  } catch {
    return false;
  }
}
