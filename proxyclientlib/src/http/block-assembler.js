// Cuts one HTTP response body into the object's digest blocks (BLOCK_BYTES, aligned to the
// object's first byte), so each block can be checked before any of its bytes is delivered.
import { BLOCK_BYTES } from '@mutp/protocol/http';
import { concat } from '../capped-body.js';
import { codedError } from '@mutp/common/errors';

/**
 * @param {number} objectStart  object offset of the response's first byte: a block boundary
 * @param {(block: number, bytes: Uint8Array) => void} onBlock  each complete block, in order; `bytes`
 *   is a view of the received chunk when the block lies in one chunk (never changed), else a copy
 */
export function createBlockAssembler(objectStart, onBlock) {
  if (objectStart % BLOCK_BYTES !== 0) throw codedError('ERR_BAD_PARAMS', `response start ${objectStart} is not a block boundary`);
  let end = Infinity; // object offset after the response's last byte, once known
  let block = objectStart / BLOCK_BYTES;
  /** @type {Uint8Array[]} */
  let parts = [];
  let have = 0; // bytes of `block` held in parts

  const blockLength = () => Math.min(BLOCK_BYTES, end - block * BLOCK_BYTES);
  function emit() {
    const bytes = concat(parts, have);
    parts = [];
    have = 0;
    onBlock(block++, bytes);
  }

  return {
    /**
     * The next body bytes of the response (pieces come in order, without gaps).
     * @param {Uint8Array} bytes
     */
    push(bytes) {
      let at = 0;
      while (at < bytes.byteLength) {
        const take = Math.min(bytes.byteLength - at, blockLength() - have);
        if (take <= 0) return; // past the announced end: proxyFetch refuses the response
        parts.push(bytes.subarray(at, at + take));
        have += take;
        at += take;
        if (have === blockLength()) emit();
      }
    },
    /** The response ends at this object offset (from its headers). @param {number} objectEnd */
    setEnd(objectEnd) {
      end = objectEnd;
      if (have > 0 && have >= blockLength()) emit();
    },
    /** The response ended: a short last block is complete. */
    finish() {
      if (have > 0) {
        end = block * BLOCK_BYTES + have;
        emit();
      }
    },
  };
}
