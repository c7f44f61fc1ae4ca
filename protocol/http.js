// @mutp/protocol/http: what the HTTP modes need (block digest lists, their vote, the range
// scheduler), apart from the MUTP senders and the codec: a client that downloads over HTTP
// loads only this. The package's main entry re-exports it.
/** @typedef {import('./src/integrity/block-digests.js').DigestList} DigestList */
/** @typedef {import('./src/integrity/block-digests.js').BlockSpan} BlockSpan */
export { BLOCK_BYTES, DIGEST_HEADER_BYTES, SPAN_DIGEST_HEADER_BYTES, MAX_DIGEST_LIST_BYTES, DIGEST_LIST_HEADER, MAX_INLINE_DIGEST_LIST_BYTES, WHOLE_OBJECT_BLOCKS, blockCount, blockSpan, blocksOfRange, blockAligned, listCovers, digestList, spanDigestList, digestListBytes, spanListBytes, encodeDigestList, decodeDigestList } from './src/integrity/block-digests.js';
export { createBlockVote } from './src/integrity/block-vote.js';
export { createRangeScheduler, createBlockRangeScheduler, firstShareCapBlocks, INITIAL_RANGE_BYTES, MIN_RANGE_BYTES } from './src/range-scheduler.js';
export { SHARE_HEADER, MAX_SHARE_WEIGHT, MAX_SHARE_CAP_BLOCKS, splitShares, shareOf, shareBytes, shareWeights, parseShareHeader } from './src/first-shares.js';
export { sameBytes } from '#same-bytes';
export { checksumOf, checksumOfAsync, checksumTable, CHECKSUM_ENTRY_BYTES, CHECKSUM_ALGO_SHA256 } from './src/integrity/checksums.js';
