// The cost bench's fleet on the namespace testbed: the same processes as on loopback (the demo
// origin, Origo, N proxies, the client agent), each in its namespace, the proxies' uploads shaped
// and the client's packets delayed. Gives the shape startCostFleet gives, so the same run measures it.
import { startTestbed, clientProxy } from '../testbed.js';

const TAG = 'cost'; // its own namespaces and /24: a testbed or campaign running beside it keeps its own
const SUBNET = '10.219.5';

/**
 * @param {object} o
 * @param {string} o.dir  the testbed's work folder (process logs, Origo's database)
 * @param {{text: string, bps: number}[]} o.rates  one per proxy
 * @param {number} o.delayMs  one-way delay on every packet to or from the client
 * @param {'stock' | 'auto' | 'tuned'} o.rtcBuild  the proxies' WebRTC build
 */
export async function startTestbedCostFleet({ dir, rates, delayMs, rtcBuild }) {
  const tb = await startTestbed({ rates, dir, delayMs, tag: TAG, subnet: SUBNET, rtcBuild });
  return {
    originUrl: tb.originUrl,
    origoUrl: tb.origoUrl,
    origoPid: tb.origoPid,
    originPid: tb.originPid,
    agents: [{ pid: tb.agentPid, logFile: tb.agentLogFile, call: tb.agentCall }],
    // as Origo lists them: with their upload rates, the client sizes its MUTP window from the paths
    proxies: tb.proxies.map((p) => ({ ...clientProxy(p), pid: p.pid, logFile: p.logFile, rtcBuild: p.rtcBuild })),
    close: () => tb.close(),
  };
}
