// Simulator speed: simulated downloads per second of wall time, per mode (target for
// Coded MUTP at N=4, 1.5 MB: >= 100/s). Numbers on a shared 2-core machine are noisy.

import { simulateOnce } from './simulate.js';

/** Wall time spent per mode, ms: long enough to average over many runs, short for CI. */
const BENCH_MS_PER_MODE = 3000;
/** Warm-up runs before timing (JIT, WASM compile, object cache). */
const WARMUP_RUNS = 3;

/**
 * @param {import('./simulate.js').SimConfig} config
 * @param {{msPerMode?: number}} [opts]
 * @returns {Promise<{mode: string, n: number, sizeBytes: number, runs: number, wallMs: number, downloadsPerSecond: number,
 *   cpuMs: number, downloadsPerCpuSecond: number}>} per CPU second too: steadier than wall time on a busy machine
 */
export async function benchConfig(config, opts = {}) {
  const budget = opts.msPerMode ?? BENCH_MS_PER_MODE;
  for (let k = 0; k < WARMUP_RUNS; k++) await simulateOnce(config, 1000 + k);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let runs = 0;
  while (performance.now() - t0 < budget) {
    const r = await simulateOnce(config, 1 + runs);
    if (!r.ok || !r.verified) throw new Error(`bench run ${runs} of ${config.mode} failed: ${r.error ?? 'not byte-exact'}`);
    runs++;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    mode: config.mode, n: config.rates.length, sizeBytes: config.size, runs, wallMs, downloadsPerSecond: (runs * 1000) / wallMs,
    cpuMs, downloadsPerCpuSecond: (runs * 1000) / cpuMs,
  };
}
