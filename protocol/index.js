// @mutp/protocol: the sans-IO MUTP core shared by proxy, client and simulator.
// See docs/protocol.md (wire format, schedulers, feedback) and docs/architecture.md.
export { encodeMessage, decodeMessage, createBundleWriter } from './src/wire.js';
export {
  MSG, MODE, SCHEDULER, DEFAULTS, WIRE_VERSION, MAX_DATAGRAM_BYTES, MAX_BUNDLE_BYTES, MAX_OBJECT_BYTES, MAX_SOURCES,
  MAX_WINDOW_PACKETS, MAX_URL_BYTES, MAX_URL_CHARS, DATA_HEADER_BYTES, CODED_HEADER_BYTES, META_COPIES,
} from './src/constants.js';
export { normalizeParams, computeLayout, maxGenerationSize } from './src/params.js';
export { windowFromPaths, dataDatagramBytes, maxWindowPackets, WINDOW_BDP_MARGIN, DEFAULT_RTT_ESTIMATE_MS, MIN_DEFAULT_WINDOW_PACKETS } from './src/window-size.js';
export { createSender, createReceiver } from './src/create.js';
export { loadCodec } from './src/codec.js';
export { UncodedSender } from './src/uncoded-sender.js';
export { CodedSender } from './src/coded-sender.js';
export { UncodedReceiver } from './src/uncoded-receiver.js';
export { CodedReceiver } from './src/coded-receiver.js';
export { epochPackets, EPOCHS_PER_WINDOW } from './src/uncoded-epochs.js';
export { ReceivedLog } from './src/received-log.js';
export { createMetaVote, createMetaAssembler, majorityAgrees, LAYOUT_FIELDS, MIN_CONTRADICTING_PACKETS } from './src/integrity/meta-vote.js';
export { CHECKSUMS_PER_META, reusedDatagrams } from './src/sender-base.js';
export { createRng } from './src/rng.js';
export { createDownloadController, DownloadController } from './src/download-controller.js';
export * from './src/download-constants.js';
export { createInflightLimit, inflightFloorPackets, uplinkDatagramRate } from './src/inflight-limit.js';
export { createPathCache } from './src/path-cache.js';
export { createBundleSizer } from './src/bundle-sizer.js';
export * from './src/inflight-constants.js';
/** @typedef {import('./http.js').DigestList} DigestList */
/** @typedef {import('./http.js').BlockSpan} BlockSpan */
export * from './http.js';
export * from './metrics.js';
