// Parameter validation and the object layout (packets, generations) both sides derive.
import {
  DEFAULTS, MAX_DATAGRAM_BYTES, CODED_HEADER_BYTES, DATA_HEADER_BYTES, MAX_GENERATION_SIZE,
  MAX_OBJECT_BYTES, MAX_WINDOW_PACKETS, MIN_PAYLOAD_BYTES, MAX_SOURCES,
} from './constants.js';
import { codedError } from '@mutp/common/errors';

/**
 * @typedef {object} Params
 * @property {number} payloadSize   bytes of object data per packet
 * @property {number} window        w, in packets (coded: w/g generations)
 * @property {number} generationSize g, packets per generation (coded)
 * @property {number} feedbackEvery packets between feedback messages
 * @property {number} surplus       coded: extra in-flight packets per generation, for loss
 * @property {number} feedbackMaxDelayMs
 * @property {number} minRtoMs
 * @property {'paper'|'share'} scheduler
 */

/**
 * The largest generation size whose coded packet fits one datagram with this payload size.
 * With the default 1100-byte payload: 1200 − 16 − 1100 = 84.
 * @param {number} payloadSize
 */
export function maxGenerationSize(payloadSize) {
  return Math.min(MAX_GENERATION_SIZE, MAX_DATAGRAM_BYTES - CODED_HEADER_BYTES - payloadSize);
}

/**
 * @param {unknown} v
 * @param {number} lo
 * @param {number} hi
 */
function isIntIn(v, lo, hi) {
  return Number.isInteger(v) && /** @type {number} */ (v) >= lo && /** @type {number} */ (v) <= hi;
}

/**
 * Fill in defaults and refuse combinations that cannot work. Throws ERR_BAD_PARAMS for a value
 * out of range and ERR_PARAMS_DO_NOT_FIT when a packet would exceed one datagram.
 * @param {Partial<Params>} [p]
 * @param {'uncoded'|'coded'} [mode]
 * @returns {Params}
 */
export function normalizeParams(p = {}, mode = 'coded') {
  /** @type {Params} */
  const out = /** @type {any} */ ({ ...DEFAULTS });
  for (const k of /** @type {(keyof Params)[]} */ (Object.keys(p))) if (p[k] !== undefined && k in DEFAULTS) /** @type {any} */ (out)[k] = p[k];
  const maxPayload = MAX_DATAGRAM_BYTES - (mode === 'coded' ? CODED_HEADER_BYTES + 1 : DATA_HEADER_BYTES);
  if (!isIntIn(out.payloadSize, MIN_PAYLOAD_BYTES, MAX_DATAGRAM_BYTES)) {
    throw codedError('ERR_BAD_PARAMS', `payloadSize must be an integer ${MIN_PAYLOAD_BYTES}..${maxPayload}`);
  }
  if (out.payloadSize > maxPayload) {
    throw codedError('ERR_PARAMS_DO_NOT_FIT',
      `payloadSize ${out.payloadSize} + ${mode} header exceeds the ${MAX_DATAGRAM_BYTES}-byte datagram (max ${maxPayload})`);
  }
  if (!isIntIn(out.window, 1, MAX_WINDOW_PACKETS)) {
    throw codedError('ERR_BAD_PARAMS', `window must be an integer 1..${MAX_WINDOW_PACKETS} packets`);
  }
  if (!isIntIn(out.generationSize, 1, MAX_GENERATION_SIZE)) {
    throw codedError('ERR_BAD_PARAMS', `generationSize must be an integer 1..${MAX_GENERATION_SIZE}`);
  }
  if (mode === 'coded' && out.generationSize > maxGenerationSize(out.payloadSize)) {
    throw codedError('ERR_PARAMS_DO_NOT_FIT',
      `generationSize ${out.generationSize} with payloadSize ${out.payloadSize} exceeds the ${MAX_DATAGRAM_BYTES}-byte datagram ` +
      `(max g for this payload: ${maxGenerationSize(out.payloadSize)})`);
  }
  if (!isIntIn(out.feedbackEvery, 1, 65535)) throw codedError('ERR_BAD_PARAMS', 'feedbackEvery must be an integer 1..65535');
  if (!isIntIn(out.surplus, 0, 255)) throw codedError('ERR_BAD_PARAMS', 'surplus must be an integer 0..255');
  if (!(out.feedbackMaxDelayMs > 0)) throw codedError('ERR_BAD_PARAMS', 'feedbackMaxDelayMs must be > 0');
  if (!(out.minRtoMs > 0)) throw codedError('ERR_BAD_PARAMS', 'minRtoMs must be > 0');
  if (out.scheduler !== 'paper' && out.scheduler !== 'share') throw codedError('ERR_BAD_PARAMS', "scheduler must be 'paper' or 'share'");
  return out;
}

/**
 * @typedef {object} Layout
 * @property {'uncoded'|'coded'} mode
 * @property {number} totalSize        object bytes
 * @property {number} payloadSize      bytes per packet (the last one may be shorter)
 * @property {number} packetCount      L
 * @property {number} generationSize   g (1 in uncoded mode)
 * @property {number} generationCount  ceil(L / g)
 * @property {number} lastGenerationSize
 * @property {number} windowPackets    w
 * @property {number} windowGenerations coded: max(1, floor(w / g)); uncoded: w
 */

/**
 * @param {'uncoded'|'coded'} mode
 * @param {number} totalSize
 * @param {Params} params
 * @returns {Layout}
 */
export function computeLayout(mode, totalSize, params) {
  if (!Number.isInteger(totalSize) || totalSize < 0) throw codedError('ERR_BAD_PARAMS', 'object size must be a non-negative integer');
  if (totalSize > MAX_OBJECT_BYTES) {
    throw codedError('ERR_OBJECT_TOO_LARGE', `object of ${totalSize} bytes exceeds the ${MAX_OBJECT_BYTES}-byte limit`);
  }
  const payloadSize = params.payloadSize;
  const packetCount = Math.ceil(totalSize / payloadSize);
  const g = mode === 'coded' ? params.generationSize : 1;
  const generationCount = Math.ceil(packetCount / g);
  const lastGenerationSize = generationCount === 0 ? 0 : packetCount - (generationCount - 1) * g;
  const windowGenerations = mode === 'coded' ? Math.max(1, Math.floor(params.window / g)) : params.window;
  return {
    mode, totalSize, payloadSize, packetCount, generationSize: g, generationCount, lastGenerationSize,
    windowPackets: params.window, windowGenerations,
  };
}

/**
 * Check a source count (the request's N).
 * @param {number} n
 */
export function checkSourceCount(n) {
  if (!isIntIn(n, 1, MAX_SOURCES)) throw codedError('ERR_BAD_PARAMS', `sourceCount must be an integer 1..${MAX_SOURCES}`);
}
