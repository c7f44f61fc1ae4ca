// Per-block digests of a whole object, for the HTTP modes: a proxy publishes the digest of every
// BLOCK_BYTES block of its copy (blocks aligned to the object's first byte, so any byte range
// shares one list), and the client checks each block it receives before delivering it.
// Entry = the first CHECKSUM_ENTRY_BYTES of SHA-256, as in MUTP's checksum table.
//
// Wire format (the body of a proxy's `GET /fetch?url=…&digests=1`), big-endian:
//   0 u8 version (1) | 1 u8 algo (CHECKSUM_ALGO_SHA256) | 2 u8 entry bytes (8) | 3 u8 log2(block bytes) (16)
//   4 u32 object bytes, high 32 bits | 8 u32 object bytes, low 32 bits | 12 … ceil(objectBytes / BLOCK_BYTES) entries
import { MAX_OBJECT_BYTES } from '../constants.js';
import { CHECKSUM_ALGO_SHA256, CHECKSUM_ENTRY_BYTES, checksumOf } from './checksums.js';

/** log2 of BLOCK_BYTES, as sent on the wire. */
const BLOCK_SHIFT = 16;
/**
 * 64 KiB per block: a 4 MiB chunk has 64 entries (512 bytes of digests, 0.01% of the object),
 * and the first block can be verified and played after 64 KiB, a few ms on any real link.
 */
export const BLOCK_BYTES = 2 ** BLOCK_SHIFT;
const DIGEST_LIST_VERSION = 1;
/** Bytes before the entries. */
export const DIGEST_HEADER_BYTES = 12;
/** Largest digest list a client accepts: one for a MAX_OBJECT_BYTES object (128 KiB of entries). */
export const MAX_DIGEST_LIST_BYTES = digestListBytes(MAX_OBJECT_BYTES);

/**
 * A proxy's body response (GET /fetch) also carries its digest list, base64, in this header when
 * the list is at most MAX_INLINE_DIGEST_LIST_BYTES: the client votes from the first byte on,
 * without a second request per proxy and object.
 */
export const DIGEST_LIST_HEADER = 'X-MUTP-Digests';
/** 2 KiB: the list of a 16 MiB object (256 entries), ~2.7 KB of header in base64; larger lists are asked for (`&digests=1`). */
export const MAX_INLINE_DIGEST_LIST_BYTES = digestListBytes(16 * 1024 * 1024);

/** Bytes of the encoded digest list of an object of `objectBytes` (known before hashing it). @param {number} objectBytes */
export function digestListBytes(objectBytes) {
  return DIGEST_HEADER_BYTES + blockCount(objectBytes) * CHECKSUM_ENTRY_BYTES;
}

/**
 * @typedef {{ objectBytes: number, digests: Uint8Array }} DigestList  digests: blockCount(objectBytes) entries
 */

/** Blocks an object of `objectBytes` has. @param {number} objectBytes */
export function blockCount(objectBytes) {
  return Math.ceil(objectBytes / BLOCK_BYTES);
}

/**
 * The object bytes block `b` covers: [start, end).
 * @param {number} b @param {number} objectBytes
 */
export function blockSpan(b, objectBytes) {
  const start = b * BLOCK_BYTES;
  return { start, end: Math.min(objectBytes, start + BLOCK_BYTES) };
}

/**
 * The digest list of a whole object.
 * @param {Uint8Array} data
 * @returns {DigestList}
 */
export function digestList(data) {
  const n = blockCount(data.byteLength);
  const digests = new Uint8Array(n * CHECKSUM_ENTRY_BYTES);
  for (let b = 0; b < n; b++) {
    const { start, end } = blockSpan(b, data.byteLength);
    digests.set(checksumOf(data.subarray(start, end)), b * CHECKSUM_ENTRY_BYTES);
  }
  return { objectBytes: data.byteLength, digests };
}

/** @param {DigestList} list */
export function encodeDigestList(list) {
  const out = new Uint8Array(DIGEST_HEADER_BYTES + list.digests.byteLength);
  const v = new DataView(out.buffer);
  v.setUint8(0, DIGEST_LIST_VERSION);
  v.setUint8(1, CHECKSUM_ALGO_SHA256);
  v.setUint8(2, CHECKSUM_ENTRY_BYTES);
  v.setUint8(3, BLOCK_SHIFT);
  v.setUint32(4, Math.floor(list.objectBytes / 2 ** 32));
  v.setUint32(8, list.objectBytes >>> 0);
  out.set(list.digests, DIGEST_HEADER_BYTES);
  return out;
}

/**
 * Parse at the edge: version, algorithm, entry and block size, object size cap, and an exact
 * length. Never throws.
 * @param {Uint8Array} bytes
 * @returns {{ ok: true, list: DigestList } | { ok: false, error: { code: string, message: string } }}
 */
export function decodeDigestList(bytes) {
  const bad = (/** @type {string} */ message) => ({ ok: /** @type {const} */ (false), error: { code: 'ERR_BAD_DIGESTS', message } });
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < DIGEST_HEADER_BYTES) return bad('digest list shorter than its header');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint8(0) !== DIGEST_LIST_VERSION) return bad(`digest list version ${v.getUint8(0)}`);
  if (v.getUint8(1) !== CHECKSUM_ALGO_SHA256 || v.getUint8(2) !== CHECKSUM_ENTRY_BYTES) return bad('digest algorithm is not SHA-256/8');
  if (v.getUint8(3) !== BLOCK_SHIFT) return bad(`digest block size 2^${v.getUint8(3)}, not 2^${BLOCK_SHIFT}`);
  const objectBytes = v.getUint32(4) * 2 ** 32 + v.getUint32(8);
  if (objectBytes > MAX_OBJECT_BYTES) return bad(`object of ${objectBytes} bytes exceeds ${MAX_OBJECT_BYTES}`);
  const want = digestListBytes(objectBytes);
  if (bytes.byteLength !== want) return bad(`digest list of ${bytes.byteLength} bytes, ${want} expected for ${objectBytes} object bytes`);
  return { ok: true, list: { objectBytes, digests: bytes.slice(DIGEST_HEADER_BYTES) } };
}
