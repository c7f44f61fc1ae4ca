// @mutp/protocol/metrics: a download's rates (paper eq. 2) and its time breakdown, for any mode,
// apart from the MUTP senders and the codec. The package's main entry re-exports it.
export { deriveRates, median } from './src/metrics.js';
export { computeTimeBreakdown, TIME_BREAKDOWN_PARTS, STEADY_WINDOW_MS, RAMP_REACHED_FRACTION } from './src/time-breakdown.js';
