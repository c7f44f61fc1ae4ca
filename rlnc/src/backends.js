// Picks the implementation: explicit `impl`, or the fastest the engine supports
// (relaxed-SIMD WASM, then SIMD WASM, then scalar WASM, then pure JS).
import { jsBackend } from './js-backend.js';
import { loadWasmBackend, wasmSupported } from './wasm-backend.js';
import { typeError } from './limits.js';

/** @typedef {import('./backend-types.js').Backend} Backend */

export const IMPLEMENTATIONS = /** @type {const} */ (['relaxed', 'simd', 'scalar', 'js']);

/** @type {Promise<'relaxed'|'simd'|'scalar'|'js'> | null} */
let bestPromise = null;

/** @returns {Promise<'relaxed'|'simd'|'scalar'|'js'>} the fastest implementation this engine runs */
export function bestImplementation() {
  if (!bestPromise) {
    bestPromise = (async () => {
      if (await wasmSupported('relaxed')) return 'relaxed';
      if (await wasmSupported('simd')) return 'simd';
      if (await wasmSupported('scalar')) return 'scalar';
      return 'js';
    })();
  }
  return bestPromise;
}

/**
 * @param {any} impl 'relaxed' | 'simd' | 'scalar' | 'js' | 'auto' | undefined
 * @returns {Promise<Backend>}
 */
export async function getBackend(impl) {
  if (impl === undefined || impl === 'auto') impl = await bestImplementation();
  if (impl === 'js') return jsBackend;
  if (impl === 'relaxed' || impl === 'simd' || impl === 'scalar') return loadWasmBackend(impl);
  throw typeError('ERR_RLNC_BAD_IMPL', `impl must be one of auto, ${IMPLEMENTATIONS.join(', ')}; got ${String(impl)}`);
}
