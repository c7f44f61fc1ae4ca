// Shaping and loss on the testbed's links. Upload rates use the project's own shaping/shape
// (htb on the proxy's eth0 egress). Loss is dropped on the RECEIVER's INPUT chain (if
// dropped at the sender, sendto() fails visibly and libraries resend), per link: the client
// drops packets from one proxy, the proxy drops packets (feedback) from the client.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { codedError } from '@mutp/common/errors';

const execFileAsync = promisify(execFile);
export const SHAPE = fileURLToPath(new URL('../../shaping/shape', import.meta.url));
const LOSS_COMMENT = 'mtb-loss'; // tags our iptables rules so they can be found and replaced
const WIRE_COMMENT = 'mtb-other'; // tags the rule that counts what a proxy sends anyone but the client
/** Bytes the veth adds to every IP packet (its Ethernet header), which the shaper counts too. */
export const ETHERNET_HEADER_BYTES = 14;
// TCP congestion control of the testbed's hosts. The paper's 2018 proxies ran Linux's default,
// cubic (default since 2.6.19; bbr was opt-in). This machine defaults to bbr, which ignores
// random loss: on an 896 KiB/s link at RTT 50 ms with 1% loss, TCP measured 847 KiB/s with bbr
// and 380 KiB/s with cubic, so bbr hides FIGURE 15's "HTTP drops at 1% loss".
export const DEFAULT_TCP_CC = 'cubic';
const AVAILABLE_CC_FILE = '/proc/sys/net/ipv4/tcp_available_congestion_control';
// A proxy's TCP initial window (`--tcp-initcwnd`), packets: RFC 6928's 10 up to what
// shaping/container-start accepts. At 896 KiB/s and RTT 50 ms a path holds ~32 packets, which
// the kernel's 10 reaches only in the connection's third round trip.
export const MIN_TCP_INITCWND = 10;
export const MAX_TCP_INITCWND = 100;

/** @param {string} ns @param {string[]} args */
function inNs(ns, args) {
  return execFileSync('ip', ['netns', 'exec', ns, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** inNs without blocking, so that several namespaces answer at once. @param {string} ns @param {string[]} args */
async function inNsAsync(ns, args) {
  return (await execFileAsync('ip', ['netns', 'exec', ns, ...args], { encoding: 'utf8' })).stdout;
}

/**
 * Limits a proxy's upload (its eth0 egress) to `bps` bytes per second.
 * @param {string} ns @param {number} bps
 */
export function shapeUpload(ns, bps) {
  inNs(ns, [SHAPE, '--dev', 'eth0', '--upload', `${bps}B`]);
}

/**
 * The htb class's byte counter on a proxy's eth0 (what actually left through the shaper).
 * @param {string} ns
 * @returns {{bytes: number, packets: number, rateBitsPerSec: number | null}}
 */
export function shapedClassStats(ns) {
  return parseClassStats(inNs(ns, ['tc', '-s', 'class', 'show', 'dev', 'eth0']));
}

/** @param {string} out `tc -s class show` of the shaper's one class */
function parseClassStats(out) {
  const sent = /Sent (\d+) bytes (\d+) pkt/.exec(out);
  const bytes = Number(sent?.[1] ?? NaN);
  const packets = Number(sent?.[2] ?? NaN);
  // tc prints rates rounded with a unit: "7340Kbit", "14680Kbit", "1Mbit"
  const rate = /rate (\d+(?:\.\d+)?)([KMG]?)bit/.exec(out);
  const mult = { '': 1, K: 1e3, M: 1e6, G: 1e9 }[rate?.[2] ?? ''];
  return { bytes, packets, rateBitsPerSec: rate ? Number(rate[1]) * mult : null };
}

/**
 * Starts counting what a proxy sends anyone but the client (Origo, the origin): an iptables
 * OUTPUT rule with no target, which only counts. sentToClient takes it from the shaper's count.
 * @param {{clientIp: string, proxyNs: string}} link
 */
export function countSentToClient(link) {
  inNs(link.proxyNs, ['iptables', '-I', 'OUTPUT', '1', '!', '-d', link.clientIp, '-m', 'comment', '--comment', WIRE_COMMENT]);
}

/**
 * What a proxy has sent the client so far: packets, and their bytes as the shaper counts them
 * (every header, Ethernet's included). The shaper (htb) counts each TCP segment of a large send
 * with its headers, when it leaves the queue; iptables sees such a send as one packet with one set
 * of headers, so it only counts the rest (log records to Origo, requests to the origin), which is
 * small. Asynchronous, so that a caller reads all proxies at once, right as a download ends.
 * @param {{clientIp: string, proxyNs: string}} link
 * @returns {Promise<{packets: number, bytes: number}>}
 */
export async function sentToClient(link) {
  const [tc, ipt] = await Promise.all([
    inNsAsync(link.proxyNs, ['tc', '-s', 'class', 'show', 'dev', 'eth0']),
    inNsAsync(link.proxyNs, ['iptables', '-L', 'OUTPUT', '-v', '-n', '-x']),
  ]);
  const shaped = parseClassStats(tc);
  const line = ipt.split('\n').find((l) => l.includes(WIRE_COMMENT));
  if (!line) throw codedError('ERR_TOPOLOGY', `no ${WIRE_COMMENT} rule in ${link.proxyNs}: the testbed's byte counter is missing`);
  const [otherPackets, otherIpBytes] = line.trim().split(/\s+/).map(Number);
  return { packets: shaped.packets - otherPackets, bytes: shaped.bytes - otherIpBytes - ETHERNET_HEADER_BYTES * otherPackets };
}

/**
 * Sets random loss on the link between a proxy and the client, both directions, each dropped
 * at its receiver. pct = 0 removes it. Idempotent.
 * @param {{clientNs: string, clientIp: string, proxyNs: string, proxyIp: string}} link
 * @param {number} pct  0 ≤ pct < 100
 */
export function setLinkLoss(link, pct) {
  if (!(pct >= 0 && pct < 100)) throw codedError('ERR_BAD_OPTION', `loss must be in [0, 100), got ${pct}`);
  clearRules(link.clientNs, link.proxyIp);
  clearRules(link.proxyNs, link.clientIp);
  if (pct === 0) return;
  const p = (pct / 100).toFixed(6);
  for (const [ns, from] of [[link.clientNs, link.proxyIp], [link.proxyNs, link.clientIp]]) {
    // inserted at the top: the client's NFQUEUE delay rule (delay.js) is appended to INPUT, and
    // its accept verdict ends the chain, so a loss rule after it would never see a packet
    inNs(ns, ['iptables', '-I', 'INPUT', '1', '-s', from, '-m', 'statistic', '--mode', 'random', '--probability', p,
      '-m', 'comment', '--comment', `${LOSS_COMMENT}:${from}`, '-j', 'DROP']);
  }
}

/** @param {string} ns @param {string} from */
function clearRules(ns, from) {
  const ours = new RegExp(`${LOSS_COMMENT}:${from.replaceAll('.', '\\.')}(?:"|\\s|$)`);
  const rules = inNs(ns, ['iptables', '-S', 'INPUT']).split('\n').filter((r) => ours.test(r));
  for (const r of rules) {
    const args = r.replace(/^-A INPUT/, '-D INPUT').match(/"[^"]*"|\S+/g).map((a) => a.replace(/^"|"$/g, ''));
    inNs(ns, ['iptables', ...args]);
  }
}

/**
 * Packets dropped so far by our loss rules in a namespace (for the report's loss check).
 * @param {string} ns
 */
export function droppedPackets(ns) {
  const out = inNs(ns, ['iptables', '-L', 'INPUT', '-v', '-n', '-x']);
  let n = 0;
  for (const line of out.split('\n')) if (line.includes(LOSS_COMMENT)) n += Number(line.trim().split(/\s+/)[0]) || 0;
  return n;
}

/**
 * Makes every TCP connection a namespace opens on its /24 use `algo` (a route metric, `ip route
 * … congctl`): local to the namespace, where the sysctl may only pick the host's allowed list.
 * With `initCwnd`, its connections also start with that congestion window (`initcwnd`, packets),
 * as shaping/container-start sets a proxy container's from TCP_INITCWND; null: the kernel's (10).
 * @param {{ns: string, ip: string}} node
 * @param {string} subnet  first three octets
 * @param {string} algo    e.g. cubic, bbr, reno
 * @param {string} [dev]
 * @param {number | null} [initCwnd]
 */
export function setTcpCongestion(node, subnet, algo, dev = 'eth0', initCwnd = null) {
  const available = readFileSync(AVAILABLE_CC_FILE, 'utf8').trim().split(/\s+/);
  if (!available.includes(algo)) {
    throw codedError('ERR_BAD_OPTION', `TCP congestion control "${algo}" is not available here (${available.join(', ')})`);
  }
  if (initCwnd !== null && !(Number.isInteger(initCwnd) && initCwnd >= MIN_TCP_INITCWND && initCwnd <= MAX_TCP_INITCWND)) {
    throw codedError('ERR_BAD_OPTION', `TCP initial window ${initCwnd}: an integer in [${MIN_TCP_INITCWND}, ${MAX_TCP_INITCWND}] packets`);
  }
  inNs(node.ns, ['ip', 'route', 'replace', `${subnet}.0/24`, 'dev', dev, 'proto', 'kernel', 'scope', 'link', 'src', node.ip, 'congctl', algo,
    ...(initCwnd === null ? [] : ['initcwnd', String(initCwnd)])]);
}
