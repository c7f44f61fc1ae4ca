// Node: read the committed .wasm next to this package.
import { readFile } from 'node:fs/promises';

/** @param {'relaxed'|'simd'|'scalar'} flavor @returns {Promise<Uint8Array>} */
export async function loadWasmBytes(flavor) {
  const buf = await readFile(new URL(`../wasm/rlnc-${flavor}.wasm`, import.meta.url));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
