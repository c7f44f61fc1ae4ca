// Per-block digests of an object, for the HTTP modes: a proxy publishes the digest of every
// BLOCK_BYTES block of its copy (blocks aligned to the object's first byte, so every byte range
// shares one numbering), and the client checks each block it receives before delivering it.
// Entry = the first CHECKSUM_ENTRY_BYTES of SHA-256, as in MUTP's checksum table.
// A list covers the whole object, or (a span list) only the blocks of one byte range: a proxy
// then needs only that range from the origin, not the whole file of a single-file stream.
//
// Wire format (the body of a proxy's `GET /fetch?url=…&digests=1[&span=a-b]`), big-endian:
//   0 u8 version (1: whole, 2: span) | 1 u8 algo (CHECKSUM_ALGO_SHA256) | 2 u8 entry bytes (8) | 3 u8 log2(block bytes) (16)
//   4 u32 object bytes, high 32 bits | 8 u32 object bytes, low 32 bits
//   version 1: 12 … ceil(objectBytes / BLOCK_BYTES) entries, blocks 0, 1, …
//   version 2: 12 u32 first block | 16 … entries of blocks first, first + 1, … up to the span's end or the object's
import { MAX_OBJECT_BYTES } from '../constants.js';
import { CHECKSUM_ALGO_SHA256, CHECKSUM_ENTRY_BYTES, checksumOf } from './checksums.js';

/** log2 of BLOCK_BYTES, as sent on the wire. */
const BLOCK_SHIFT = 16;
/**
 * 64 KiB per block: a 4 MiB chunk has 64 entries (512 bytes of digests, 0.01% of the object),
 * and the first block can be verified and played after 64 KiB, a few ms on any real link.
 */
export const BLOCK_BYTES = 2 ** BLOCK_SHIFT;
const WHOLE_LIST_VERSION = 1;
const SPAN_LIST_VERSION = 2;
/** Bytes before the entries of a whole list. */
export const DIGEST_HEADER_BYTES = 12;
/** Bytes before the entries of a span list (the first block's index follows the whole list's header). */
export const SPAN_DIGEST_HEADER_BYTES = 16;
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
 * @typedef {{ objectBytes: number, firstBlock: number, digests: Uint8Array }} DigestList
 *   digests: the entries of blocks firstBlock, firstBlock + 1, …; a whole list has firstBlock 0 and
 *   blockCount(objectBytes) entries
 */

/**
 * Blocks [first, end) of the object, end exclusive; end is Infinity for "to the object's end".
 * @typedef {{ first: number, end: number }} BlockSpan
 */

/** Every block of the object. @type {BlockSpan} */
export const WHOLE_OBJECT_BLOCKS = Object.freeze({ first: 0, end: Infinity });

/**
 * The blocks a byte range touches.
 * @param {{ start: number, end: number } | null} range  end inclusive; null: the whole object
 * @returns {BlockSpan}
 */
export function blocksOfRange(range) {
  if (!range) return WHOLE_OBJECT_BLOCKS;
  return { first: Math.floor(range.start / BLOCK_BYTES), end: Math.ceil((range.end + 1) / BLOCK_BYTES) };
}

/**
 * A byte range widened to whole blocks (end inclusive; may pass the object's end, which a proxy clamps).
 * @param {{ start: number, end: number }} range
 */
export function blockAligned(range) {
  const { first, end } = blocksOfRange(range);
  return { start: first * BLOCK_BYTES, end: end * BLOCK_BYTES - 1 };
}

/**
 * The blocks of `span` an object of `objectBytes` has: [first, end) clipped to the object (empty when
 * the span starts past it).
 * @param {BlockSpan} span @param {number} objectBytes
 * @returns {BlockSpan}
 */
export function clipBlocks(span, objectBytes) {
  const end = Math.min(span.end, blockCount(objectBytes));
  return { first: Math.min(span.first, end), end };
}

/**
 * Bytes of the encoded list of `span`'s blocks of an object of `objectBytes` (known before hashing).
 * @param {BlockSpan} span @param {number} objectBytes
 */
export function spanListBytes(span, objectBytes) {
  const { first, end } = clipBlocks(span, objectBytes);
  const whole = first === 0 && end === blockCount(objectBytes);
  return (whole ? DIGEST_HEADER_BYTES : SPAN_DIGEST_HEADER_BYTES) + (end - first) * CHECKSUM_ENTRY_BYTES;
}

/** Does `list` hold the digest of block b? @param {DigestList} list @param {number} b */
export function listHas(list, b) {
  return b >= list.firstBlock && b < list.firstBlock + list.digests.byteLength / CHECKSUM_ENTRY_BYTES;
}

/** Does `list` hold every block of `span` its object has? @param {DigestList} list @param {BlockSpan} span */
export function listCovers(list, span) {
  const { first, end } = clipBlocks(span, list.objectBytes);
  return first === end || (listHas(list, first) && listHas(list, end - 1));
}

/** Offset of block b's entry in `list.digests` (listHas(list, b) must hold). @param {DigestList} list @param {number} b */
export function entryOffset(list, b) {
  return (b - list.firstBlock) * CHECKSUM_ENTRY_BYTES;
}

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
  return spanDigestList(data, 0, data.byteLength, WHOLE_OBJECT_BLOCKS);
}

/**
 * The digest list of the blocks of `span` (clipped to the object), from a copy of part of the object.
 * @param {Uint8Array} bytes  object bytes from offset `at` on, holding every byte of the span's blocks
 * @param {number} at  the object offset of bytes[0], at most the span's first byte
 * @param {number} objectBytes  the object's size
 * @param {BlockSpan} span
 * @returns {DigestList}
 */
export function spanDigestList(bytes, at, objectBytes, span) {
  const { first, end } = clipBlocks(span, objectBytes);
  const digests = new Uint8Array((end - first) * CHECKSUM_ENTRY_BYTES);
  for (let b = first; b < end; b++) {
    const s = blockSpan(b, objectBytes);
    if (s.start < at || s.end - at > bytes.byteLength) throw new RangeError(`block ${b} is not in the bytes ${at}..${at + bytes.byteLength}`);
    digests.set(checksumOf(bytes.subarray(s.start - at, s.end - at)), (b - first) * CHECKSUM_ENTRY_BYTES);
  }
  return { objectBytes, firstBlock: first, digests };
}

/** A whole list is sent as version 1, which every client reads; a span list as version 2. @param {DigestList} list */
export function encodeDigestList(list) {
  const whole = list.firstBlock === 0 && list.digests.byteLength === blockCount(list.objectBytes) * CHECKSUM_ENTRY_BYTES;
  const header = whole ? DIGEST_HEADER_BYTES : SPAN_DIGEST_HEADER_BYTES;
  const out = new Uint8Array(header + list.digests.byteLength);
  const v = new DataView(out.buffer);
  v.setUint8(0, whole ? WHOLE_LIST_VERSION : SPAN_LIST_VERSION);
  v.setUint8(1, CHECKSUM_ALGO_SHA256);
  v.setUint8(2, CHECKSUM_ENTRY_BYTES);
  v.setUint8(3, BLOCK_SHIFT);
  v.setUint32(4, Math.floor(list.objectBytes / 2 ** 32));
  v.setUint32(8, list.objectBytes >>> 0);
  if (!whole) v.setUint32(12, list.firstBlock);
  out.set(list.digests, header);
  return out;
}

/**
 * Parse at the edge: version, algorithm, entry and block size, object size cap, and an exact
 * length: a whole list has every block's entry; a span list starts at the first block of
 * `want` and has every entry of `want` the object it claims has. Never throws.
 * @param {Uint8Array} bytes
 * @param {BlockSpan} [want]  the blocks the list was asked for (default: the whole object)
 * @returns {{ ok: true, list: DigestList } | { ok: false, error: { code: string, message: string } }}
 */
export function decodeDigestList(bytes, want = WHOLE_OBJECT_BLOCKS) {
  const bad = (/** @type {string} */ message) => ({ ok: /** @type {const} */ (false), error: { code: 'ERR_BAD_DIGESTS', message } });
  if (!(bytes instanceof Uint8Array) || bytes.byteLength < DIGEST_HEADER_BYTES) return bad('digest list shorter than its header');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = v.getUint8(0);
  if (version !== WHOLE_LIST_VERSION && version !== SPAN_LIST_VERSION) return bad(`digest list version ${version}`);
  if (v.getUint8(1) !== CHECKSUM_ALGO_SHA256 || v.getUint8(2) !== CHECKSUM_ENTRY_BYTES) return bad('digest algorithm is not SHA-256/8');
  if (v.getUint8(3) !== BLOCK_SHIFT) return bad(`digest block size 2^${v.getUint8(3)}, not 2^${BLOCK_SHIFT}`);
  const objectBytes = v.getUint32(4) * 2 ** 32 + v.getUint32(8);
  if (objectBytes > MAX_OBJECT_BYTES) return bad(`object of ${objectBytes} bytes exceeds ${MAX_OBJECT_BYTES}`);
  if (version === WHOLE_LIST_VERSION) {
    const length = digestListBytes(objectBytes);
    if (bytes.byteLength !== length) return bad(`digest list of ${bytes.byteLength} bytes, ${length} expected for ${objectBytes} object bytes`);
    return { ok: true, list: { objectBytes, firstBlock: 0, digests: bytes.slice(DIGEST_HEADER_BYTES) } };
  }
  if (bytes.byteLength < SPAN_DIGEST_HEADER_BYTES) return bad('span digest list shorter than its header');
  const firstBlock = v.getUint32(12);
  const span = clipBlocks(want, objectBytes);
  if (firstBlock !== span.first) return bad(`span digest list starts at block ${firstBlock}, block ${span.first} was asked`);
  const length = SPAN_DIGEST_HEADER_BYTES + (span.end - span.first) * CHECKSUM_ENTRY_BYTES; // not spanListBytes: a v2 list of every block is allowed
  if (bytes.byteLength !== length) return bad(`span digest list of ${bytes.byteLength} bytes, ${length} expected for blocks ${span.first}..${span.end} of ${objectBytes} object bytes`);
  return { ok: true, list: { objectBytes, firstBlock, digests: bytes.slice(SPAN_DIGEST_HEADER_BYTES) } };
}
