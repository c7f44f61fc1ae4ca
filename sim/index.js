// @mutp/sim: the discrete-event simulator (see README.md for the model).
export { simulateOnce, simulateConfig, MODES } from './src/simulate.js';
export { parseRate, parseRates, parseSize } from './src/units.js';
export { expandSweep, toSimConfig } from './src/sweep.js';
export { parseCli, parseSweep } from './src/cli-options.js';
export { benchConfig } from './src/bench.js';
export { createPrng } from './src/prng.js';
export { CAMPAIGN_OVERHEAD_BYTES, TESTBED_QUEUE_MS } from './src/compare.js';
export { SCTP_INITIAL_CWND_PACKETS } from './src/sctp.js';
