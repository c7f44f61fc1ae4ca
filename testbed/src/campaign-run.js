// Runs a campaign's downloads on a started testbed: up to `concurrency` downloads at a time,
// each on its own proxies (disjoint sets, so every proxy's shaped uplink serves one download),
// with loss set on exactly the links a download uses. FIGURE 11's boxes (runsAlone; with the loss
// preset, FIGURE 15's too) run alone: the others drain first and wait, so those boxes measure the
// protocol, not a crowded machine.
// One JSON line per download, with the machine's load while it ran.
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { COMPOSITIONS, SLOW_BPS, FAST_BPS, conditionKey, runsAlone } from './campaign-plan.js';
import { busyCores, machineCpu, stolenShare } from './proc-cpu.js';
import { clientProxy, SETTLE_MS } from './testbed.js';

const WAIT_FOR_PROXIES_MS = 20; // poll period while every fitting proxy is busy

/**
 * @typedef {import('./campaign-plan.js').Condition} Condition
 * @typedef {import('./testbed.js').TestbedProxy} TestbedProxy
 */

/**
 * Which compositions this fleet can serve at all.
 * @param {{rateBps: number}[]} proxies
 */
export function feasibleCompositions(proxies) {
  const slow = proxies.filter((p) => p.rateBps === SLOW_BPS).length;
  const fast = proxies.filter((p) => p.rateBps === FAST_BPS).length;
  return /** @type {(keyof typeof COMPOSITIONS)[]} */ (Object.keys(COMPOSITIONS)).filter((k) => COMPOSITIONS[k].slow <= slow && COMPOSITIONS[k].fast <= fast);
}

/**
 * @param {object} o
 * @param {Awaited<ReturnType<typeof import('./testbed.js').startTestbed>>} o.testbed
 * @param {{condition: Condition, sizeKiB: number}[]} o.items
 * @param {number} o.concurrency
 * @param {string} o.resultsFile   JSON lines appended here
 * @param {() => number} o.random
 * @param {(done: number, total: number, last: object) => void} [o.onProgress]
 * @param {number} [o.settleMs]  quiet time before each download that runs alone, once the logs reached Origo
 * @param {(c: Condition) => boolean} [o.isAlone]  which boxes run alone   [runsAlone: FIGURE 11's]
 * @returns {Promise<object[]>} the result rows
 */
export async function runCampaign({ testbed, items, concurrency, resultsFile, random, onProgress, settleMs = SETTLE_MS, isAlone = runsAlone }) {
  const busy = new Set();
  const queue = [...items];
  const rows = [];
  let inFlight = 0;
  let aloneRunning = false;
  const cores = cpus().length;
  const delayPid = testbed.delay?.pid ?? null;

  /** @param {Condition} c @returns {TestbedProxy[] | null} fast first, then slow (source order) */
  function acquire(c) {
    const need = COMPOSITIONS[c.composition];
    const pick = (/** @type {number} */ bps, /** @type {number} */ count) => {
      const free = testbed.proxies.filter((p) => p.rateBps === bps && !busy.has(p));
      if (free.length < count) return null;
      for (let i = free.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [free[i], free[j]] = [free[j], free[i]];
      }
      return free.slice(0, count);
    };
    const fast = pick(FAST_BPS, need.fast);
    const slow = pick(SLOW_BPS, need.slow);
    if (!fast || !slow) return null;
    const set = [...fast, ...slow];
    set.forEach((p) => busy.add(p));
    return set;
  }

  /**
   * The first queued item whose proxies are free (keeps the shuffled order otherwise). A target
   * box's item runs alone: it waits for the others to finish, and at the head of the queue it
   * stops new ones from starting, so it is never starved.
   */
  function takeNext() {
    if (aloneRunning) return null;
    for (let i = 0; i < queue.length; i++) {
      const alone = isAlone(queue[i].condition);
      if (alone && inFlight > 0) {
        if (i === 0) return null;
        continue;
      }
      const proxies = acquire(queue[i].condition);
      if (!proxies) continue;
      aloneRunning = alone;
      return { item: queue.splice(i, 1)[0], proxies, alone };
    }
    return null;
  }

  async function worker() {
    while (queue.length > 0) {
      const next = takeNext();
      if (!next) {
        await new Promise((r) => setTimeout(r, WAIT_FOR_PROXIES_MS));
        continue;
      }
      const { item, proxies, alone } = next;
      const c = item.condition;
      inFlight++;
      try {
        if (c.lossPct > 0) testbed.setLoss(c.lossPct, proxies);
        let preOpened = 0; // connections the preconnect opened for this download: new ones, though the download takes them from the pool
        if (alone) {
          // warm connections, as the simulator's comparison assumes (kept: true) and a playing client
          // has: a proxy may have been idle past the pool's 20 s since its last MUTP download
          if (c.mode === 'uncoded' || c.mode === 'coded') {
            const outcomes = /** @type {{ ok: boolean, reused: boolean }[]} */ (await testbed.preconnect(proxies.map(clientProxy)));
            preOpened = outcomes.filter((o) => o.ok && !o.reused).length;
          }
          // the earlier downloads' records reach Origo first: its ingest (~0.1 s of CPU per MUTP
          // record) would otherwise run during this download
          await testbed.flushLogs();
          await new Promise((res) => setTimeout(res, settleMs));
        }
        const cpu0 = proxies.map((p) => testbed.cpuSeconds(p.pid));
        const delay0 = delayPid ? testbed.cpuSeconds(delayPid) : null;
        const machine0 = machineCpu();
        const load0 = loadavg()[0];
        const t0 = performance.now();
        const r = await testbed.download({
          url: testbed.objectUrl(item.sizeKiB), mode: c.mode, proxies: proxies.map(clientProxy),
          ...(c.mode === 'uncoded' || c.mode === 'coded' ? { window: c.window } : {}),
          ...(c.mode === 'coded' ? { generationSize: c.generationSize } : {}),
        });
        const wallSec = (performance.now() - t0) / 1000;
        const machine1 = machineCpu();
        const proxyCpu = proxies.map((p, i) => ((testbed.cpuSeconds(p.pid) ?? NaN) - (cpu0[i] ?? NaN)) / wallSec);
        const delaylineCpu = delayPid && delay0 !== null ? ((testbed.cpuSeconds(delayPid) ?? NaN) - delay0) / wallSec : null;
        const s = r.stats ?? {};
        const ok = !r.error && s.netBytes > 0;
        const row = {
          key: conditionKey(c), ...c, sizeKiB: item.sizeKiB, proxyIds: proxies.map((p) => p.id), ok,
          error: r.error?.code ?? null, durationMs: s.durationMs ?? null, netBytes: s.netBytes ?? 0, grossBytes: s.grossBytes ?? 0,
          goodputBps: ok ? s.netBytes / (s.durationMs / 1000) : null,
          throughputBps: ok ? s.grossBytes / (s.durationMs / 1000) : null,
          normalizedGoodput: ok && s.grossBytes > 0 ? s.netBytes / s.grossBytes : null,
          lossEstimate: s.lossEstimate ?? null, duplicates: s.duplicates ?? null,
          proxyCpuMax: Math.max(...proxyCpu), proxyCpuMean: proxyCpu.reduce((a, b) => a + b, 0) / proxyCpu.length,
          clientCpu: r.clientCpuSeconds / wallSec, concurrent: inFlight, alone: Boolean(alone), loadavg1: loadavg()[0], loadavg1Start: load0,
          busyCores: round3(busyCores(machine0, machine1, cores)), stolen: round3(stolenShare(machine0, machine1)), delaylineCpu: delaylineCpu === null ? null : round3(delaylineCpu),
          // MUTP: kept connections this download took and new ones it opened (pool counters; exact when alone)
          connectionsReused: r.connections ? r.connections.reused - preOpened : null, connectionsOpened: r.connections ? r.connections.opened + preOpened : null,
          // HTTP modes: new TCP connections to the proxies (a handshake before the request)
          tcpConnectionsOpened: typeof r.connections?.tcpOpened === 'number' ? r.connections.tcpOpened : null,
          recordId: s.id ?? null, startedAt: s.startedAt ?? null, firstPacketMs: s.firstPacketMs ?? null, timeBreakdown: s.timeBreakdown ?? null,
        };
        rows.push(row);
        appendFileSync(resultsFile, `${JSON.stringify(row)}\n`);
        onProgress?.(rows.length, items.length, row);
      } finally {
        if (c.lossPct > 0) testbed.setLoss(0, proxies);
        proxies.forEach((p) => busy.delete(p));
        inFlight--;
        if (alone) aloneRunning = false;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return rows;
}

/** @param {number} v */
const round3 = (v) => (Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null);
