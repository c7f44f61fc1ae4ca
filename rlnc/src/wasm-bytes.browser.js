// Browser: fetch the committed .wasm relative to this module (bundlers rewrite the URL).

/** @param {'relaxed'|'simd'|'scalar'} flavor @returns {Promise<Uint8Array>} */
export async function loadWasmBytes(flavor) {
  const res = await fetch(new URL(`../wasm/rlnc-${flavor}.wasm`, import.meta.url));
  if (!res.ok) throw new Error(`rlnc: fetching rlnc-${flavor}.wasm failed: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}
