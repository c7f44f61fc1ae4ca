// `bench:cost --saturate`: one proxy process and up to 8 client agents. Per mode, K agents (1, 2,
// 4, 8) download through that one proxy at once, `perAgent` downloads each, until the proxy
// process uses ~1 core; its CPU over each step is read from /proc (proc-cpu.js).
import { cpus, loadavg } from 'node:os';
import { busyCores, cpuSeconds, machineCpu } from '../proc-cpu.js';
import { QUIET_MS, settleBefore } from './run.js';
import { sumDeltas } from './summary.js';
import { SATURATE_AGENTS, saturateStep, saturated } from './saturate-summary.js';

/**
 * @param {object} o
 * @param {Awaited<ReturnType<typeof import('./local-fleet.js').startCostFleet>>} o.fleet  one proxy, SATURATE_AGENTS' largest count of agents
 * @param {readonly string[]} o.modes
 * @param {number} o.perAgent       downloads per agent per step, back to back
 * @param {string} o.url @param {string} o.expectedSha256
 * @param {(step: import('./saturate-summary.js').SaturateStep) => void} [o.onStep]
 */
export async function runSaturate({ fleet, modes, perAgent, url, expectedSha256, onStep }) {
  const proxy = fleet.proxies[0];
  const refs = [{ id: proxy.id, url: proxy.url }];
  const cores = cpus().length;
  /** @type {import('./saturate-summary.js').SaturateStep[]} */
  const steps = [];
  /** @type {any[]} */
  const downloads = [];
  for (const mode of modes) {
    // warm-up: the proxy caches the object and every agent opens its connections (not measured)
    await Promise.all(fleet.agents.map((a) => a.call({ cmd: 'download', url, mode, proxies: 1 })));
    for (const k of SATURATE_AGENTS) {
      const agents = fleet.agents.slice(0, k);
      await settleBefore(agents, fleet.agents, mode, refs, QUIET_MS);
      const load = loadavg()[0];
      const machine0 = machineCpu();
      const proxy0 = cpuSeconds(proxy.pid);
      const clients0 = agents.map((a) => cpuSeconds(a.pid));
      const t0 = performance.now();
      const results = (await Promise.all(agents.map(async (a) => {
        const mine = [];
        for (let i = 0; i < perAgent; i++) mine.push(await a.call({ cmd: 'download', url, mode, proxies: 1 }));
        return mine;
      }))).flat();
      const wallS = (performance.now() - t0) / 1000;
      const proxy1 = cpuSeconds(proxy.pid);
      const clients1 = agents.map((a) => cpuSeconds(a.pid));
      const clientsCpuS = sumDeltas(clients0, clients1);
      const step = saturateStep({
        mode, agents: k, results, expectedSha256, wallS, proxyCpuS: proxy0 === null || proxy1 === null ? null : proxy1 - proxy0, clientsCpuS,
        loadavg1: load, busyCores: busyCores(machine0, machineCpu(), cores),
      });
      steps.push(step);
      downloads.push(...results.map((r) => ({ mode, agents: k, error: r.error ?? null, netBytes: r.stats?.netBytes ?? 0, durationMs: r.stats?.durationMs ?? null, sha256: r.sha256 ?? null })));
      onStep?.(step);
      if (saturated(step)) break;
    }
  }
  return { steps, downloads };
}
