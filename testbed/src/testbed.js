// The one-machine testbed: real Origo, real proxies, the demo origin and a ProxyClientLib
// client, each in its own network namespace, with every proxy's upload shaped by shaping/shape.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { proxyToken } from '@mutp/origo';
import { planTopology, createTopology, destroyTag, allNodes } from './topology.js';
import { shapeUpload, setLinkLoss, setTcpCongestion, DEFAULT_TCP_CC, countSentToClient, sentToClient } from './links.js';
import { startDelay } from './delay.js';
import { capClientDownload, segmentAtSender, startQueueSampler } from './bottleneck.js';
import { startCrossTcp } from './cross-traffic.js';
import { createSharedLinkMeter, CROSS_LEAD_MS } from './shared-link.js';
import { spawnInNs } from './spawn-in-ns.js';
import { ENTRY } from './entries.js';
import { createAgentRpc } from './agent-rpc.js';
import { cpuSeconds } from './proc-cpu.js';
import { readProxyRtcBuild } from './rtc-build.js';
import { codedError } from '@mutp/common/errors';

const PORTS = /** @type {const} */ ({ origo: 8080, proxy: 8090, origin: 8000 }); // each process has its own namespace, so fixed ports never clash
const FLEET_READY_BASE_MS = 30_000; // Origo (DuckDB) and the first proxies start on 2 busy cores
const FLEET_READY_PER_PROXY_MS = 5000; // each proxy's Node start-up + socket.io handshake, under load
const REQUIRED_TOOLS = ['ip', 'tc', 'iptables'];

/**
 * @typedef {{id: string, url: string, ip: string, ns: string, rateBps: number, rateText: string, pid: number, logFile: string,
 *   rtcBuild?: ReturnType<typeof readProxyRtcBuild>}} TestbedProxy
 */

/** Throws ERR_NEED_ROOT / ERR_MISSING_TOOL with a clear message when the testbed cannot run here. */
export function checkPrerequisites() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw codedError('ERR_NEED_ROOT', 'the testbed needs root: it creates network namespaces and shapes links with tc/iptables (run it with sudo)');
  }
  for (const tool of REQUIRED_TOOLS) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      throw codedError('ERR_MISSING_TOOL', `'${tool}' not found: install iproute2 and iptables`);
    }
  }
}

/**
 * Quiet time before a measured download, ms, once the client's log records reached Origo: the machine
 * (2 cores) then runs the download alone, not Origo's ingest of the previous records.
 */
export const SETTLE_MS = 300;

/**
 * A testbed proxy as Origo's list gives it to a client (id, URL, advertised upload rate).
 * @param {{ id: string, url: string, rateBps: number }} p
 * @returns {{ id: string, url: string, uploadRateBps: number }}
 */
export function clientProxy(p) {
  return { id: p.id, url: p.url, uploadRateBps: p.rateBps };
}

/**
 * @param {object} o
 * @param {{text: string, bps: number}[]} o.rates   one entry per proxy
 * @param {string} o.dir            work directory: process logs, Origo's DuckDB file
 * @param {string} [o.tag]          namespace tag; a stale testbed with the same tag is removed first
 * @param {string} [o.subnet]       first three octets of the private /24
 * @param {number} [o.lossPct]      random loss on every proxy↔client link, dropped at the receiver
 * @param {string} [o.origoDb]      DuckDB path (default <dir>/origo.duckdb) or ':memory:'
 * @param {number} [o.delayMs]      one-way delay on every packet to or from the client (0: none); netem, else shaping/delayline
 * @param {boolean} [o.forceDelayLine]  the delay line even where netem exists (its own test)
 * @param {string} [o.tcpCongestion]  TCP congestion control of every host (links.js: why cubic)
 * @param {number | null} [o.tcpInitCwnd]  the proxies' TCP initial window, packets, as TCP_INITCWND sets a proxy
 *                                 container's (null: the kernel's, 10)
 * @param {boolean} [o.freshDigestLists]  the client asks for each download's digest lists (HTTP modes) instead of
 *                                 reusing a URL's from its last download: a viewer meets each segment once
 * @param {import('./bottleneck.js').ClientCap | null} [o.clientCap]  a download cap on the client with a bounded queue,
 *                                 shared by every flow towards it (bottleneck.js)
 * @param {boolean} [o.crossTcp]    a host of its own for one long TCP download to the client through the cap
 *                                 (started by startSharedLink)
 * @param {number} [o.originDelayMs]  one-way delay to and from the origin (0: none; RTT +2·D, all of it on the packets
 *                                 into the origin: delay.js says why), so a proxy's fetch of an object it has not
 *                                 cached costs what it would from a distant origin
 * @param {{text: string, bps: number} | null} [o.originRate]  the origin's upload rate (null: unshaped)
 * @param {string} [o.rtcBuild]     the proxies' WebRTC build (MUTP_RTC_BUILD: stock | auto | tuned); auto: tuned when built
 */
export async function startTestbed({ rates, dir, tag = 'main', subnet = '10.219.0', lossPct = 0, origoDb, delayMs = 0, forceDelayLine = false, tcpCongestion = DEFAULT_TCP_CC, tcpInitCwnd = null, freshDigestLists = false, clientCap = null, crossTcp = false, originDelayMs = 0, originRate = null,
  rtcBuild = process.env.MUTP_RTC_BUILD || 'auto' }) {
  checkPrerequisites();
  if (crossTcp && !clientCap) throw codedError('ERR_BAD_OPTION', 'cross traffic needs a client cap: without one the client\'s link has no bottleneck to share');
  mkdirSync(dir, { recursive: true });
  const topo = planTopology({ tag, subnet, proxyCount: rates.length, cross: crossTcp });
  const cleanup = installCleanup(tag);
  createTopology(topo);
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = [];
  try {
    topo.proxies.forEach((p, i) => shapeUpload(p.ns, rates[i].bps));
    if (originRate) shapeUpload(topo.origin.ns, originRate.bps);
    for (const n of allNodes(topo)) setTcpCongestion(n, subnet, tcpCongestion, 'eth0', topo.proxies.includes(n) ? tcpInitCwnd : null);
    let bottleneck = clientCap ? capClientDownload(topo.hub, topo.client.hubDev, clientCap) : null;
    if (bottleneck) for (const n of allNodes(topo)) if (n !== topo.client) segmentAtSender(n.ns);
    /** @type {import('./delay.js').DelayInfo | null} */
    const delay = delayMs > 0
      // with a cap, the delay line: netem's inbound half would take the root of the cap's device,
      // and the queue must stay where the cap is
      ? await startDelay({ hostNs: topo.client.ns, peerNs: topo.hub, peerDev: topo.client.hubDev, delayMs, logFile: join(dir, 'delayline.log'), forceDelayLine: forceDelayLine || bottleneck !== null })
      : null;
    /** @type {import('./delay.js').DelayInfo | null} */
    const originDelay = originDelayMs > 0
      ? await startDelay({ hostNs: topo.origin.ns, who: 'origin', inboundOnly: true, peerNs: topo.hub, peerDev: topo.origin.hubDev, delayMs: 2 * originDelayMs, logFile: join(dir, 'delayline-origin.log'), forceDelayLine })
      : null;

    const secret = randomBytes(32).toString('hex'); // per run: tokens of an earlier run are worthless
    const adminPassword = randomBytes(12).toString('base64url'); // the dashboard's login for this run
    const originUrl = `http://${topo.origin.ip}:${PORTS.origin}`;
    const origoUrl = `http://${topo.origo.ip}:${PORTS.origo}`;
    const originChild = spawnInNs({ ns: topo.origin.ns, script: ENTRY.origin, args: ['--host', topo.origin.ip, '--port', String(PORTS.origin)], logFile: join(dir, 'origin.log') });
    children.push(originChild);
    const origoChild = spawnInNs({
      ns: topo.origo.ns, script: ENTRY.origo, logFile: join(dir, 'origo.log'),
      args: ['--host', topo.origo.ip, '--port', String(PORTS.origo), '--db', origoDb ?? join(dir, 'origo.duckdb'), '--rate-limit', '0', '--ticket-rate', '0', '--log-quota', '0', '--allow-private-proxies'], // one client address, proxies on 10.219.x
      env: { ORIGO_PROXY_SECRET: secret, ORIGO_ADMIN_PASSWORD: adminPassword },
    });
    children.push(origoChild);
    /** @type {TestbedProxy[]} */
    const proxies = topo.proxies.map((p, i) => {
      const id = `tb-${p.name}`;
      const logFile = join(dir, `proxy-${p.name}.log`);
      const child = spawnInNs({
        ns: p.ns, script: ENTRY.proxy, logFile,
        args: ['--host', p.ip, '--port', String(PORTS.proxy), '--id', id, '--origo', origoUrl,
          '--upload-rate', `${rates[i].bps}B`, '--allowed-hosts', `${topo.origin.ip}:${PORTS.origin}`, '--allow-private'],
        env: { PROXY_TOKEN: proxyToken(secret, id), MUTP_RTC_BUILD: rtcBuild }, // auto, tuned when built: kept connections, where it lifts SCTP's max burst
      });
      children.push(child);
      return { id, url: `http://${p.ip}:${PORTS.proxy}`, ip: p.ip, ns: p.ns, rateBps: rates[i].bps, rateText: rates[i].text, pid: child.pid ?? 0, logFile };
    });
    const agentLogFile = join(dir, 'client.log');
    const agentChild = spawnInNs({ ns: topo.client.ns, script: ENTRY.agent, args: [origoUrl, ...(freshDigestLists ? ['--fresh-digest-lists'] : [])], logFile: agentLogFile, pipeStdio: true });
    children.push(agentChild);
    const agent = createAgentRpc(agentChild);
    await agent.call({ cmd: 'waitFleet', count: proxies.length, timeoutMs: FLEET_READY_BASE_MS + FLEET_READY_PER_PROXY_MS * proxies.length });
    // Each proxy logged its WebRTC build before it registered with Origo.
    for (const p of proxies) p.rtcBuild = readProxyRtcBuild(p.logFile);

    const links = proxies.map((p) => ({ clientNs: topo.client.ns, clientIp: topo.client.ip, proxyNs: p.ns, proxyIp: p.ip }));
    if (lossPct > 0) links.forEach((l) => setLinkLoss(l, lossPct));
    links.forEach(countSentToClient);

    let closed = false;
    /** @type {ReturnType<typeof createSharedLinkMeter> | null} */
    let meter = null;
    return {
      topology: topo,
      origoUrl,
      originUrl,
      adminPassword,
      proxies,
      agentPid: agentChild.pid ?? 0,
      agentLogFile,
      /** the client agent's RPC (client-agent.js: download, preconnect, flush, …) */
      agentCall: agent.call,
      /** the origin's and Origo's processes (their CPU is readable, as the proxies' and the agent's) */
      originPid: originChild.pid ?? 0,
      origoPid: origoChild.pid ?? 0,
      /** How the one-way delay is emulated (null: no delay, the bridge's ~0.1 ms RTT). */
      delay: delay ? { method: delay.method, delayMs: delay.delayMs, describe: delay.describe, pid: delay.pid } : null,
      /** The origin's link (null: the bridge's, unshaped): its one-way delay and upload rate. */
      originLink: originDelay || originRate ? { delay: originDelay ? { method: originDelay.method, rttMs: originDelay.delayMs, describe: originDelay.describe } : null, rateBps: originRate?.bps ?? null } : null,
      tcpCongestion,
      /** The proxies' TCP initial window, packets (null: the kernel's). */
      tcpInitCwnd,
      /** The client's download cap (null: none): rate, queue bound in ms and bytes, device. */
      get bottleneck() {
        return bottleneck;
      },
      /**
       * Changes the client's cap or its queue bound (the testbed must have started with one).
       * @param {import('./bottleneck.js').ClientCap} cap
       */
      setClientCap(cap) {
        if (!bottleneck) throw codedError('ERR_BAD_OPTION', 'no client cap: start the testbed with clientCap');
        bottleneck = capClientDownload(topo.hub, topo.client.hubDev, cap);
      },
      /**
       * Starts watching the capped link: the queue sampler, and the cross TCP flow (crossTcp,
       * unless cross is false) with CROSS_LEAD_MS of lead. Run each download through the meter's
       * measure(); its summary() covers their time spans. One meter at a time: stop() the last.
       * @param {{cross?: boolean}} [o]
       */
      async startSharedLink({ cross: withCross = true } = {}) {
        if (!bottleneck) throw codedError('ERR_BAD_OPTION', 'no client cap: start the testbed with clientCap');
        const sampler = startQueueSampler({ ns: topo.hub, dev: bottleneck.dev });
        let cross = null;
        try {
          await sampler.first();
          if (topo.cross && withCross) {
            cross = await startCrossTcp({ senderNs: topo.cross.ns, receiverNs: topo.client.ns, receiverIp: topo.client.ip, logFile: join(dir, 'cross-tcp.log') });
            await new Promise((r) => setTimeout(r, CROSS_LEAD_MS));
          }
        } catch (err) {
          sampler.stop();
          throw err;
        }
        meter = createSharedLinkMeter({ bottleneck, sampler, cross, crossCongestion: tcpCongestion });
        return meter;
      },
      /**
       * URL of a deterministic demo object of `kib` KiB on the origin. With `segment`, a URL of its own
       * (the origin ignores the query) as each segment of a video has: no cache on the way (the
       * proxies' object cache, the client's per-URL digest lists) has seen it before.
       * @param {number} kib @param {number} [segment]
       */
      objectUrl: (kib, segment) => `${originUrl}/media/demo-${kib}KB.bin${segment === undefined ? '' : `?segment=${segment}`}`,
      /**
       * One download by the client. Resolves with {stats, sha256?, hashCpuSeconds?, error?, clientCpuSeconds, wallMs}
       * (sha256: of the body the client returned, when it completed; hashCpuSeconds: the agent's CPU
       * for that digest, inside clientCpuSeconds).
       * @param {{url: string, mode: string, proxies: {id: string, url: string, uploadRateBps?: number}[], window?: number, generationSize?: number, cold?: boolean}} req
       *   proxies: as Origo lists them (clientProxy): with their upload rate, the client sizes the
       *   MUTP window from the paths and the records carry the rate mix, as a real client's do;
       *   cold: the client closes its kept connections first, so a MUTP download connects anew
       */
      download: (req) => agent.call({ cmd: 'download', ...req }),
      /** Loss on the links of the given proxies (all when omitted). @param {number} pct @param {TestbedProxy[]} [which] */
      setLoss(pct, which = proxies) {
        for (const p of which) setLinkLoss(links[proxies.indexOf(p)], pct);
      },
      /**
       * What the proxies have sent the client so far, summed: packets, and bytes as the shapers
       * count them (headers of every layer included), when they left the shapers' queues. The
       * difference over a download is its cost on the links.
       */
      sentToClient: async () => (await Promise.all(links.map(sentToClient))).reduce((a, b) => ({ packets: a.packets + b.packets, bytes: a.bytes + b.bytes }), { packets: 0, bytes: 0 }),
      /** CPU seconds used so far by a process of the testbed. @param {number} pid */
      cpuSeconds,
      /**
       * Each proxy's WebRTC build as the client gets it from GET /rtc/build (its SCTP sender included):
       * [{id, build}], build null (with an error code) when a proxy did not answer.
       * @returns {Promise<{id: string, build: Record<string, any> | null, error?: string}[]>}
       */
      rtcBuilds: () => agent.call({ cmd: 'rtcBuilds', proxies: proxies.map((p) => ({ id: p.id, url: p.url })) }),
      /** Waits until the client's log records reached Origo. */
      flushLogs: () => agent.call({ cmd: 'flush' }),
      /**
       * Opens the client's WebRTC connections to these proxies (kept ones stay), so the next MUTP
       * download starts on warm connections: the client's pool closes one idle for 20 s.
       * @param {ReturnType<typeof clientProxy>[]} list
       */
      preconnect: (list) => agent.call({ cmd: 'preconnect', proxies: list }),
      /**
       * Closes the client's kept WebRTC connections to these proxies (a download to them then
       * starts on new ones, beside the others' kept ones). @param {ReturnType<typeof clientProxy>[]} list
       */
      closeConnections: (list) => agent.call({ cmd: 'closeConnections', proxies: list }),
      async close() {
        if (closed) return;
        closed = true;
        try {
          await agent.call({ cmd: 'flush' });
        } catch {
          /* the agent is gone: nothing to flush */
        }
        meter?.stop();
        agentChild.stdin?.end();
        delay?.stop();
        originDelay?.stop();
        cleanup.run();
      },
    };
  } catch (err) {
    cleanup.run();
    throw err;
  }
}

/** Exit status 128 + signal number, as shells report a death by signal. */
const SIGNAL_NUMBERS = /** @type {Record<string, number>} */ ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 });

/**
 * Tears the testbed down on every way out: normal exit, Ctrl-C, SIGTERM, an uncaught error.
 * @param {string} tag
 */
function installCleanup(tag) {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    destroyTag(tag);
    process.off('exit', run);
  };
  const onSignal = (/** @type {NodeJS.Signals} */ sig) => {
    process.stderr.write(`\ntestbed: ${sig}, tearing down…\n`);
    run();
    process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15));
  };
  process.on('exit', run);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // SIGHUP: the parent shell or `npm run` went away (e.g. it was killed); without a handler
  // node would exit at once and leave every namespace behind.
  process.once('SIGHUP', onSignal);
  process.once('uncaughtException', (err) => {
    process.stderr.write(`testbed: crashed (${err?.stack ?? err}), tearing down…\n`);
    run();
    process.exit(1);
  });
  return { run };
}
