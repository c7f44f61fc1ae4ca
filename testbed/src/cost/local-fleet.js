// The cost bench's fleet on 127.0.0.1: the demo origin, Origo (a temporary DuckDB file), N proxies
// and the client agent(s), each its own Node process (its CPU is read from /proc), each
// with a log file in the output folder. Every child joins the process group, so the caller stops
// them on every way out, a failed start included.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { proxyToken } from '@mutp/origo';
import { codedError } from '@mutp/common/errors';
import { createAgentRpc } from '../agent-rpc.js';
import { readProxyRtcBuild } from '../rtc-build.js';
import { cpuProfileArgs, spawnLocal, waitForOutput } from './spawn-local.js';
import { ENTRY } from '../entries.js';

const HOST = '127.0.0.1'; // loopback only: no namespaces, no shaping
const SERVER_START_TIMEOUT_MS = 30_000; // Node start-up, DuckDB opening, libdatachannel loading on 2 busy cores
const FLEET_READY_BASE_MS = 30_000; // as the namespace testbed: Origo and the first proxies on 2 busy cores
const FLEET_READY_PER_PROXY_MS = 5000; // each proxy's socket.io handshake with Origo, under load
/** Stop order (process-group.js): the clients first, Origo and the origin last, so no one loses a peer while it stops. */
const STOP_ORDER = { agent: 0, proxy: 1, origo: 2, origin: 2 };
export const RTC_BUILDS = /** @type {const} */ (['stock', 'auto', 'tuned']);

/**
 * @typedef {{id: string, url: string, pid: number, logFile: string, rtcBuild: ReturnType<typeof readProxyRtcBuild>}} FleetProxy
 * @typedef {{pid: number, logFile: string, call: (req: object) => Promise<any>}} FleetAgent
 */

/**
 * @param {object} o
 * @param {ReturnType<typeof import('./process-group.js').createProcessGroup>} o.group  every child joins it
 * @param {string} o.dir            log files go here
 * @param {number} [o.proxyCount]
 * @param {number} [o.agentCount]   client agents (one process each)
 * @param {'stock' | 'auto' | 'tuned'} [o.rtcBuild]  the proxies' WebRTC build (MUTP_RTC_BUILD)
 * @param {string} [o.cpuProfDir]  the proxies and the agents each write a CPU profile here when they stop
 */
export async function startCostFleet({ group, dir, proxyCount = 4, agentCount = 1, rtcBuild = 'stock', cpuProfDir }) {
  if (!RTC_BUILDS.includes(rtcBuild)) throw codedError('ERR_BAD_OPTION', `--rtc-build must be one of ${RTC_BUILDS.join(', ')}`);
  mkdirSync(dir, { recursive: true });
  const dbDir = mkdtempSync(join(tmpdir(), 'mutp-bench-cost-')); // Origo's records are not this bench's output
  group.addCleanup(() => rmSync(dbDir, { recursive: true, force: true }));
  try {
    const secret = randomBytes(32).toString('hex'); // per run: tokens of an earlier run are worthless
    const start = (/** @type {keyof typeof STOP_ORDER} */ kind, /** @type {string} */ name, /** @type {Parameters<typeof spawnLocal>[0]} */ o) =>
      group.add(name, spawnLocal(o), STOP_ORDER[kind]);

    const originLog = join(dir, 'origin.log');
    const origin = start('origin', 'origin', { script: ENTRY.origin, args: ['--host', HOST, '--port', '0'], logFile: originLog });
    const origoLog = join(dir, 'origo.log');
    const origo = start('origo', 'origo', {
      script: ENTRY.origo, logFile: origoLog,
      // one client address and loopback proxies: Origo's per-address caps would refuse a bench, not a viewer
      args: ['--host', HOST, '--port', '0', '--db', join(dbDir, 'origo.duckdb'), '--rate-limit', '0', '--ticket-rate', '0', '--log-quota', '0', '--allow-private-proxies'],
      env: { ORIGO_PROXY_SECRET: secret, ORIGO_ADMIN_PASSWORD: randomBytes(12).toString('base64url') },
    });
    const [originUp, origoUp] = await Promise.all([
      waitForOutput(origin, /^demo origin: (http:\/\/\S+?)\/media\//m, { what: 'the demo origin', logFile: originLog, timeoutMs: SERVER_START_TIMEOUT_MS }),
      waitForOutput(origo, /^origo listening on (\S+)\s/m, { what: 'Origo', logFile: origoLog, timeoutMs: SERVER_START_TIMEOUT_MS }),
    ]);
    const originUrl = originUp[1];
    const origoUrl = origoUp[1];

    const proxies = await Promise.all(Array.from({ length: proxyCount }, async (_, i) => {
      const id = `cost-p${i + 1}`;
      const logFile = join(dir, `proxy-${i + 1}.log`);
      const child = start('proxy', id, {
        script: ENTRY.proxy, logFile, nodeArgs: cpuProfileArgs(cpuProfDir),
        // --rate-limit 0: every request comes from one client address
        args: ['--host', HOST, '--port', '0', '--id', id, '--origo', origoUrl, '--allowed-hosts', new URL(originUrl).host, '--allow-private', '--rate-limit', '0'],
        env: { PROXY_TOKEN: proxyToken(secret, id), MUTP_RTC_BUILD: rtcBuild },
      });
      const up = await waitForOutput(child, /^proxy \S+ listening on (\S+)\s/m, { what: `proxy ${id}`, logFile, timeoutMs: SERVER_START_TIMEOUT_MS });
      return { id, url: up[1], pid: child.pid ?? 0, logFile };
    }));

    /** @type {FleetAgent[]} */
    const agents = Array.from({ length: agentCount }, (_, i) => {
      const logFile = join(dir, agentCount === 1 ? 'client.log' : `client-${i + 1}.log`);
      const child = start('agent', `client ${i + 1}`, { script: ENTRY.agent, args: [origoUrl], logFile, pipeStdio: true, nodeArgs: cpuProfileArgs(cpuProfDir) });
      const rpc = createAgentRpc(child, { logName: logFile });
      return { pid: child.pid ?? 0, logFile, call: rpc.call };
    });
    const timeoutMs = FLEET_READY_BASE_MS + FLEET_READY_PER_PROXY_MS * proxyCount;
    await Promise.all(agents.map(async (a) => {
      try {
        await a.call({ cmd: 'waitFleet', count: proxyCount, timeoutMs });
      } catch (err) {
        throw codedError('ERR_BENCH_FLEET', `the fleet did not come up: ${err.code}: ${err.message}; see ${origoLog}, ${a.logFile} and the proxy-*.log in ${dir}`);
      }
    }));
    return {
      originUrl, origoUrl, origoPid: origo.pid ?? 0, originPid: origin.pid ?? 0, agents,
      /** @type {FleetProxy[]} each proxy logged its WebRTC build before it registered with Origo */
      proxies: proxies.map((p) => ({ ...p, rtcBuild: readProxyRtcBuild(p.logFile) })),
      /** Stops every child and removes Origo's database. */
      close: () => group.stop(),
    };
  } catch (err) {
    await group.stop();
    throw err;
  }
}
