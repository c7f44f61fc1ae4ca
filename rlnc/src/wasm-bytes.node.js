// Node: read the committed .wasm next to this package.
import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';

/**
 * Node 20's V8 (11.3) implements relaxed SIMD (~35% faster multiply-add here) but only behind
 * a flag; Node 22+ and current browsers ship it. Turn the flag on, once, only when the engine
 * refuses the relaxed module, before any module is compiled, so proxies and the simulator get
 * the fast build without a command-line flag. Where the flag is unknown this is a no-op.
 */
let relaxedChecked = false;
/** @param {Uint8Array} relaxedBytes */
function enableRelaxedSimd(relaxedBytes) {
  if (relaxedChecked) return;
  relaxedChecked = true;
  if (!WebAssembly.validate(/** @type {BufferSource} */ (relaxedBytes))) v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
}

/** @param {'relaxed'|'simd'|'scalar'} flavor @returns {Promise<Uint8Array>} */
export async function loadWasmBytes(flavor) {
  const buf = await readFile(new URL(`../wasm/rlnc-${flavor}.wasm`, import.meta.url));
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (flavor === 'relaxed') enableRelaxedSimd(bytes);
  return bytes;
}
