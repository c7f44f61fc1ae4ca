// `bench:cost --saturate`, pure: one step (K client agents downloading through one proxy process
// at once) from the CPU samples around it, and its printed table. The proxy's efficiency is MB
// delivered per CPU-second of the proxy process; a step where that process used ~1 core shows the
// most one proxy process serves in that mode (Node runs a proxy's JavaScript on one thread).
import { exclusion, MB, MODE_NAMES } from './summary.js';

export const SATURATE_AGENTS = /** @type {const} */ ([1, 2, 4, 8]); // client agents at once, doubling
export const SATURATED_CORES = 0.9; // "~1 core": the proxy process's CPU over a step at or above this stops the doubling

/**
 * @typedef {object} RawStep
 * @property {string} mode
 * @property {number} agents     client agents downloading at once
 * @property {any[]} results     the agents' answers to `download`
 * @property {string} expectedSha256
 * @property {number} wallS      from the first download's start to the last one's end
 * @property {number | null} proxyCpuS    the proxy process's CPU over the step
 * @property {number | null} clientsCpuS  the K agents' CPU over it, summed
 * @property {number} loadavg1   before the step
 * @property {number} busyCores  the machine's, during it
 */

/** @param {number | null} v */
const round6 = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 1e6) / 1e6);

/**
 * A step's numbers. Only byte-exact downloads count (one proxy: the HTTP modes' digest vote has no
 * second proxy, so the record's `verified` is false by design and not asked for).
 * @param {RawStep} s
 */
export function saturateStep(s) {
  const excluded = s.results.map((r) => exclusion(r, s.expectedSha256, { vote: false })).filter((x) => x !== null);
  const bytes = s.results.filter((r) => exclusion(r, s.expectedSha256, { vote: false }) === null).reduce((a, r) => a + r.stats.netBytes, 0);
  const mb = bytes / MB;
  return {
    mode: s.mode, agents: s.agents, downloads: s.results.length, verified: s.results.length - excluded.length, excluded,
    wallS: round6(s.wallS), MBps: round6(s.wallS > 0 ? mb / s.wallS : null),
    proxyCpuS: round6(s.proxyCpuS), proxyCores: round6(s.proxyCpuS == null || !(s.wallS > 0) ? null : s.proxyCpuS / s.wallS),
    MBPerProxyCpuS: round6(s.proxyCpuS ? mb / s.proxyCpuS : null),
    clientsCpuS: round6(s.clientsCpuS), clientsCores: round6(s.clientsCpuS == null || !(s.wallS > 0) ? null : s.clientsCpuS / s.wallS),
    loadavg1: round6(s.loadavg1), busyCores: round6(s.busyCores),
  };
}

/** @typedef {ReturnType<typeof saturateStep>} SaturateStep */

/** @param {SaturateStep} step  whether the proxy process used ~1 core over the step */
export const saturated = (step) => step.proxyCores !== null && step.proxyCores >= SATURATED_CORES;

/** @param {number | null} v @param {number} digits */
const num = (v, digits) => (v == null || !Number.isFinite(v) ? '–' : v.toFixed(digits));

/**
 * @param {SaturateStep[]} steps
 * @param {{sizeBytes: number, perAgent: number, rtcBuild: string, cores: number}} meta
 */
export function formatSaturate(steps, meta) {
  const lines = [
    `bench:cost --saturate: one proxy process, K client agents at once (each its own process, \`proxies: 1\`), ${meta.perAgent} download(s) each`,
    `  of a ${num(meta.sizeBytes / 2 ** 20, 0)} MiB object per step, K doubling until the proxy process uses ≥ ${SATURATED_CORES} of a core; WebRTC build ${meta.rtcBuild}; 1 MB = 10^6 bytes`,
    '  MB per proxy CPU-s: MB delivered per CPU-second of the proxy process (every thread, /proc); byte-exact downloads only',
    '',
    `${'mode'.padEnd(18)} ${'K'.padStart(2)} ${'ok'.padStart(6)} ${'MB/s'.padStart(7)} ${'proxy cores'.padStart(11)} ${'MB per proxy CPU-s'.padStart(18)} ${'clients cores'.padStart(13)} ${'load'.padStart(5)} ${'busy'.padStart(5)}`,
  ];
  for (const s of steps) {
    lines.push(`${(MODE_NAMES[s.mode] ?? s.mode).padEnd(18)} ${String(s.agents).padStart(2)} ${`${s.verified}/${s.downloads}`.padStart(6)} ${num(s.MBps, 1).padStart(7)}` +
      ` ${num(s.proxyCores, 2).padStart(11)} ${num(s.MBPerProxyCpuS, 1).padStart(18)} ${num(s.clientsCores, 2).padStart(13)} ${num(s.loadavg1, 2).padStart(5)}` +
      ` ${num(s.busyCores, 2).padStart(5)}${saturated(s) ? '  proxy at ~1 core' : ''}`);
    for (const why of new Set(s.excluded)) lines.push(`  excluded: ${s.excluded.filter((x) => x === why).length} × ${why}`);
  }
  lines.push('', `machine: ${meta.cores} cores; the K agents share them with the proxy, so on a small machine the clients may saturate it before the proxy does (clients cores, busy)`);
  return lines.join('\n');
}
