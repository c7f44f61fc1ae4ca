// The default window from the measured paths: enough packets in flight to keep every proxy's
// uplink busy for one round trip (the bandwidth-delay product), with a margin, in whole
// generations, within what the wire can carry. An explicit window (the paper's fixed w) is the
// caller's to keep; this is only the default.
import { CODED_HEADER_BYTES, DATA_HEADER_BYTES, DEFAULTS, MAX_DATAGRAM_BYTES, MAX_WINDOW_PACKETS } from './constants.js';
import { feedbackBytes } from './wire.js';
import { normalizeParams, checkSourceCount } from './params.js';
import { codedError } from '@mutp/common/errors';

/**
 * Window over the bandwidth-delay product (ratio). A sender refills the window only when
 * feedback returns: one RTT, plus the receiver's feedback pacing (every feedbackEvery packets or
 * feedbackMaxDelayMs), the packets queued in SCTP meanwhile, and, with the 'share' scheduler,
 * the wait for the slowest owner of the lowest generation. Simulated (RTT 50 ms, 1.5 MiB, kept
 * connections, the testbed's 50 ms shaper queue, sources starting 3 ms apart, 5 seeds; goodput
 * KiB/s at ×1.5 → ×2 → ×3): coded 4×896 KiB/s 2717 → 2737 → 2757, 1×1792 + 3×896
 * 3299 → 3317 → 3391, 6×896 3901 → 3928 → 3928; at 1% loss 2200 → 2493 → 2731 (4×896) and
 * 3078 → 3594 → 3670 (6×896); Uncoded MUTP 4×896 2729 → 2762 → 2762, mix 3228 → 3332 → 3392.
 * Fewer duplicates too (coded mix: 40 → 1 per download). Under random loss a generation also
 * waits a round trip or two for the replacement of a lost packet, while the window stands still:
 * at 5% loss, kept paths, ×3 → ×4 → ×5 → ×6: 4×896 2295 → 2576 → 2624 → 2658 KiB/s, the mix
 * 2949 → 3056 → 3186 → 3087 (lossless unchanged); testbed, 4×896, 5% loss, 12 warm downloads,
 * two runs each: ×3 2264 and 2247 KiB/s, ×5 2492 and 2502.
 */
export const WINDOW_BDP_MARGIN = 5;

/**
 * RTT (ms) presumed when none is measured: the paper's testbed and this project's campaign
 * (25 ms each way).
 */
export const DEFAULT_RTT_ESTIMATE_MS = 50;

/**
 * Smallest default window, packets: the paper's w = 240 (Figure 11), measured at its ceiling
 * for N ≤ 4 at RTT 50 ms; smaller windows are not measured, so the default never goes below it.
 */
export const MIN_DEFAULT_WINDOW_PACKETS = DEFAULTS.window;

/**
 * The largest window the wire allows for this download: w ≤ MAX_WINDOW_PACKETS, and the
 * feedback for the whole window (bits, or generations × (DoF + contributions)) fits one datagram.
 * @param {'uncoded'|'coded'} mode @param {number} sourceCount @param {number} generationSize
 */
export function maxWindowPackets(mode, sourceCount, generationSize) {
  checkSourceCount(sourceCount);
  const g = mode === 'coded' ? generationSize : 1;
  // feedbackBytes is linear in the count: coded 2 + N bytes per generation, uncoded 1 bit per packet
  const room = MAX_DATAGRAM_BYTES - feedbackBytes(mode, sourceCount, 0);
  const perUnit = mode === 'coded' ? 2 + sourceCount : 1 / 8;
  return Math.min(Math.floor(MAX_WINDOW_PACKETS / g), Math.floor(room / perUnit)) * g;
}

/**
 * Bytes of one data datagram (headers and coefficients included) with these normalized params.
 * @param {'uncoded'|'coded'} mode @param {{ payloadSize: number, generationSize: number }} p
 */
export function dataDatagramBytes(mode, p) {
  return p.payloadSize + (mode === 'coded' ? CODED_HEADER_BYTES + p.generationSize : DATA_HEADER_BYTES);
}

/**
 * The default window (packets) for proxies uploading at `ratesBps` (bytes/s each) over a path
 * of `rttMs`: Σ rates × RTT / datagram bytes × WINDOW_BDP_MARGIN, rounded up to whole
 * generations (coded), at least MIN_DEFAULT_WINDOW_PACKETS, at most maxWindowPackets().
 * @param {object} o
 * @param {'uncoded'|'coded'} o.mode
 * @param {number[]} o.ratesBps      one upload rate per proxy, bytes/s (> 0)
 * @param {number} [o.rttMs]         round-trip estimate (default DEFAULT_RTT_ESTIMATE_MS)
 * @param {Partial<import('./params.js').Params>} [o.params]  generationSize, payloadSize (the rest is ignored)
 * @returns {number}
 */
export function windowFromPaths({ mode, ratesBps, rttMs = DEFAULT_RTT_ESTIMATE_MS, params = {} }) {
  if (!Array.isArray(ratesBps) || ratesBps.some((r) => !(typeof r === 'number' && r > 0 && Number.isFinite(r)))) {
    throw codedError('ERR_BAD_PARAMS', 'ratesBps must be positive finite bytes/s, one per proxy');
  }
  if (!(typeof rttMs === 'number' && rttMs >= 0 && Number.isFinite(rttMs))) throw codedError('ERR_BAD_PARAMS', 'rttMs must be a finite number ≥ 0');
  const p = normalizeParams({ generationSize: params.generationSize, payloadSize: params.payloadSize }, mode);
  const g = mode === 'coded' ? p.generationSize : 1;
  const datagramBytes = dataDatagramBytes(mode, p);
  const sum = ratesBps.reduce((a, r) => a + r, 0);
  const packets = (sum * rttMs / 1000 / datagramBytes) * WINDOW_BDP_MARGIN;
  const max = maxWindowPackets(mode, ratesBps.length, g);
  const min = Math.min(max, Math.ceil(MIN_DEFAULT_WINDOW_PACKETS / g) * g);
  return Math.max(min, Math.min(max, Math.ceil(packets / g) * g));
}
