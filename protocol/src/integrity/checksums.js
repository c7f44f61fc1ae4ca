// Integrity checksums (against pollution by a proxy): one per unit of the object, taken by the proxy from its own
// copy. A unit is a generation in coded mode (what one decode yields) and a packet in uncoded
// mode (so a corrupted packet is refused on arrival and its sender is known exactly).
import { sha256, sha256Async } from '#sha256';

/** Checksum algorithm code on the wire: SHA-256 truncated to CHECKSUM_ENTRY_BYTES. */
export const CHECKSUM_ALGO_SHA256 = 1;

/**
 * Bytes kept of each SHA-256: 8 bytes make forging data that matches a given entry a 2^64
 * second-preimage search (out of reach of any proxy), and keep the uncoded per-packet table at
 * 8/1100 = 0.7% of the object.
 */
export const CHECKSUM_ENTRY_BYTES = 8;

/**
 * Bytes of object data unit `u` covers.
 * @param {import('../params.js').Layout} layout
 * @param {number} u
 */
export function unitRange(layout, u) {
  const unitBytes = layout.payloadSize * layout.generationSize;
  const start = u * unitBytes;
  return { start, end: Math.min(layout.totalSize, start + unitBytes) };
}

/** Units the object has: generations (coded) or packets (uncoded; g = 1 there). @param {import('../params.js').Layout} layout */
export function unitCount(layout) {
  return layout.generationCount;
}

/**
 * The truncated SHA-256 of some bytes.
 * @param {Uint8Array} bytes
 */
export function checksumOf(bytes) {
  return sha256(bytes).subarray(0, CHECKSUM_ENTRY_BYTES);
}

/**
 * checksumOf() off the calling thread (the browser's WebCrypto), or null where the environment
 * has no such digest (Node, whose checksumOf is native already; a page outside a secure context).
 * @type {((bytes: Uint8Array) => Promise<Uint8Array>) | null}
 */
export const checksumOfAsync = sha256Async ? checksumOffThread : null;

/** checksumOfAsync where there is one. @param {Uint8Array} bytes */
async function checksumOffThread(bytes) {
  const hash = /** @type {(bytes: Uint8Array) => Promise<Uint8Array>} */ (sha256Async);
  return (await hash(bytes)).subarray(0, CHECKSUM_ENTRY_BYTES);
}

/**
 * The whole checksum table of an object: unitCount × CHECKSUM_ENTRY_BYTES bytes.
 * @param {Uint8Array} data
 * @param {import('../params.js').Layout} layout
 */
export function checksumTable(data, layout) {
  const n = unitCount(layout);
  const out = new Uint8Array(n * CHECKSUM_ENTRY_BYTES);
  for (let u = 0; u < n; u++) {
    const { start, end } = unitRange(layout, u);
    out.set(checksumOf(data.subarray(start, end)), u * CHECKSUM_ENTRY_BYTES);
  }
  return out;
}

/**
 * Does `bytes` match entry `u` of `table`?
 * @param {Uint8Array} table
 * @param {number} u
 * @param {Uint8Array} bytes
 */
export function matchesEntry(table, u, bytes) {
  const h = checksumOf(bytes);
  const o = u * CHECKSUM_ENTRY_BYTES;
  for (let i = 0; i < CHECKSUM_ENTRY_BYTES; i++) if (h[i] !== table[o + i]) return false;
  return true;
}
