// The cost bench's run: warm-up downloads of every mode (every proxy caches the object, every
// connection opens, V8 compiles the hot code), then `runs` rounds of every mode once, the order rotated per round. Each
// download is measured alone, from the processes themselves: CPU seconds of every process from
// /proc (proc-cpu.js) before it and after it and its trailing work.
import { cpus, loadavg } from 'node:os';
import { busyCores, cpuSeconds, machineCpu } from '../proc-cpu.js';
import { costRow, roundOrder } from './summary.js';

/** Quiet before a download, ms, once the earlier records reached Origo: the download runs alone (as the testbed's SETTLE_MS). */
export const QUIET_MS = 300;
/**
 * Measured after the client's answer and its log post, ms: a proxy posts its records to Origo
 * 100 ms after a download (LOG_FLUSH_DELAY_MS) and a MUTP sender stops on the client's done;
 * this covers both on 2 busy cores. Idle Node processes use ~nothing meanwhile.
 */
export const TRAIL_MS = 400;
/** Modes that run over WebRTC: their connections are opened before a measured download. */
export const MUTP_MODES = new Set(['uncoded', 'coded']);

/**
 * Before a measured download: the agents' kept WebRTC connections are open (the pool closes one
 * idle for 20 s), every earlier record has reached Origo (so its ingest does not run during it),
 * and the machine has been quiet quietMs.
 * @param {{call: (req: object) => Promise<any>}[]} agents  those that will download
 * @param {{call: (req: object) => Promise<any>}[]} flushing  those whose records must reach Origo first
 * @param {string} mode @param {{id: string, url: string}[]} proxies @param {number} quietMs
 */
export async function settleBefore(agents, flushing, mode, proxies, quietMs) {
  if (MUTP_MODES.has(mode)) await Promise.all(agents.map((a) => a.call({ cmd: 'preconnect', proxies })));
  await Promise.all(flushing.map((a) => a.call({ cmd: 'flush' })));
  await sleep(quietMs);
}

/**
 * @param {object} o
 * @param {Awaited<ReturnType<typeof import('./local-fleet.js').startCostFleet>> | Awaited<ReturnType<typeof import('./testbed-fleet.js').startTestbedCostFleet>>} o.fleet
 * @param {readonly string[]} o.modes
 * @param {number} o.runs
 * @param {number} [o.warmups]  warm-up rounds before them (rows with phase 'warmup', round 0)
 * @param {string} o.url             the object every download asks for
 * @param {string} o.expectedSha256  its digest: a download is byte-exact when the client's body has it
 * @param {(row: import('./summary.js').CostRow) => void} [o.onRow]
 * @param {number} [o.quietMs] @param {number} [o.trailMs]
 */
export async function runCostBench({ fleet, modes, runs, warmups = 1, url, expectedSha256, onRow, quietMs = QUIET_MS, trailMs = TRAIL_MS }) {
  const agent = fleet.agents[0];
  // as Origo lists them (a testbed's with their upload rates: the client sizes its MUTP window from them)
  const proxies = fleet.proxies.map((p) => ({ id: p.id, url: p.url, ...('uploadRateBps' in p ? { uploadRateBps: p.uploadRateBps } : {}) }));
  const cores = cpus().length;
  /** @returns {import('./summary.js').CpuSample} */
  const sample = () => ({
    proxies: fleet.proxies.map((p) => cpuSeconds(p.pid)), agent: cpuSeconds(agent.pid), origo: cpuSeconds(fleet.origoPid), origin: cpuSeconds(fleet.originPid),
  });
  /** @type {import('./summary.js').CostRow[]} */
  const rows = [];

  /** @param {string} mode @param {'warmup' | 'measured'} phase @param {number} round @param {number} slot */
  async function measure(mode, phase, round, slot) {
    await settleBefore([agent], [agent], mode, proxies, quietMs);
    const load = loadavg()[0];
    const machine0 = machineCpu();
    const cpu0 = sample();
    const result = await agent.call({ cmd: 'download', url, mode, proxies });
    // inside the span: the client's log post of this download and Origo's ingest of it, then the proxies' records
    await agent.call({ cmd: 'flush' });
    await sleep(trailMs);
    const cpu1 = sample();
    const row = costRow({ phase, round, slot, mode, result, expectedSha256, cpu0, cpu1, loadavg1: load, busyCores: busyCores(machine0, machineCpu(), cores) });
    rows.push(row);
    onRow?.(row);
  }

  for (let w = 0; w < warmups; w++) {
    for (const [slot, mode] of modes.entries()) await measure(mode, 'warmup', 0, slot);
  }
  for (let r = 0; r < runs; r++) {
    for (const [slot, mode] of roundOrder(modes, r).entries()) await measure(mode, 'measured', r + 1, slot);
  }
  return rows;
}

/** @param {number} ms */
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
