// bench:datachannel's measurement: a sender and a receiver process (datachannel-peer.js) on
// loopback, connected through this process, which relays their signalling and reads each one's
// CPU and thread wake-ups from /proc around one paced transfer.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { codedError } from '@mutp/common/errors';
import { cpuSeconds } from '../proc-cpu.js';
import { switchesBetween, threadSwitches } from '../proc-switches.js';

const PEER_SCRIPT = fileURLToPath(new URL('./datachannel-peer.js', import.meta.url));
/** Set-up (process start, ICE, DTLS, SCTP on loopback) takes well under a second; this is a hang. */
const OPEN_TIMEOUT_MS = 15_000;
/** After the sender's last message: what was in flight arrives (loopback: well under this, ms). */
const DRAIN_MS = 300;
const MS_PER_S = 1000;
const BYTES_PER_MB = 1e6;

/**
 * @typedef {{ cpuMs: number, msPerMB: number, switches: Record<string, number>, switchesPerMB: number }} EndCost
 * @typedef {{ rateMBps: number, tickMs: number, messageBytes: number, seconds: number, sentMB: number,
 *   receivedMB: number, goodputMBps: number, sender: EndCost, receiver: EndCost, builds: { sender: string, receiver: string } }} PairResult
 */

/**
 * @param {string} role @param {string} build
 * @param {(c: import('node:child_process').ChildProcess) => void} track  the caller's cleanup list
 */
function startPeer(role, build, track) {
  const child = fork(PEER_SCRIPT, [role, build], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  /** @type {Array<(m: any) => boolean>} */
  const waiters = [];
  child.on('message', (m) => {
    const i = waiters.findIndex((w) => w(m));
    if (i >= 0) waiters.splice(i, 1);
  });
  /** @param {(m: any) => boolean} match @param {number} timeoutMs @param {string} what */
  const next = (match, timeoutMs, what) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(codedError('ERR_BENCH_PEER', `the ${role} did not ${what} within ${timeoutMs} ms`)), timeoutMs);
    const exit = (code) => reject(codedError('ERR_BENCH_PEER', `the ${role} exited (${code}) before it would ${what}`));
    child.once('exit', exit);
    waiters.push((m) => {
      if (!m?.error && !match(m)) return false;
      clearTimeout(timer);
      child.off('exit', exit);
      if (m.error) reject(codedError('ERR_BENCH_PEER', `the ${role}: ${m.error}`));
      else resolve(m);
      return true;
    });
  });
  return { child, next, pid: /** @type {number} */ (child.pid) };
}

/** @param {number} pid */
function reading(pid) {
  const cpu = cpuSeconds(pid);
  const switches = threadSwitches(pid);
  if (cpu === null || switches === null) throw codedError('ERR_BENCH_PEER', `process ${pid} is gone`);
  return { cpu, switches };
}

/**
 * @param {{ cpu: number, switches: Record<string, number> }} a @param {{ cpu: number, switches: Record<string, number> }} b
 * @param {number} mb
 * @returns {EndCost}
 */
function endCost(a, b, mb) {
  const cpuMs = (b.cpu - a.cpu) * MS_PER_S;
  const switches = switchesBetween(a.switches, b.switches);
  const total = Object.values(switches).reduce((s, n) => s + n, 0);
  return { cpuMs, msPerMB: cpuMs / mb, switches, switchesPerMB: total / mb };
}

/**
 * One transfer of `bytes` from a new sender to a new receiver.
 * @param {{ senderBuild: string, receiverBuild: string, rateMBps: number, tickMs: number, messageBytes: number, bytes: number,
 *   track: (c: import('node:child_process').ChildProcess) => void }} o
 * @returns {Promise<PairResult>}
 */
export async function measurePair({ senderBuild, receiverBuild, rateMBps, tickMs, messageBytes, bytes, track }) {
  const sender = startPeer('sender', senderBuild, track);
  const receiver = startPeer('receiver', receiverBuild, track);
  try {
    await Promise.all([sender.next((m) => m.ready, OPEN_TIMEOUT_MS, 'start'), receiver.next((m) => m.ready, OPEN_TIMEOUT_MS, 'start')]);
    const relay = (from, to) => from.child.on('message', (m) => {
      if (m?.description || m?.candidate) to.child.send(m);
    });
    relay(sender, receiver);
    relay(receiver, sender);
    const opened = Promise.all([sender.next((m) => m.open, OPEN_TIMEOUT_MS, 'open its channel'), receiver.next((m) => m.open, OPEN_TIMEOUT_MS, 'open its channel')]);
    sender.child.send({ offer: true });
    const [senderOpen, receiverOpen] = await opened;

    const before = { sender: reading(sender.pid), receiver: reading(receiver.pid) };
    const expectedMs = rateMBps > 0 ? (bytes / BYTES_PER_MB / rateMBps) * MS_PER_S : 0;
    const sent = sender.next((m) => m.sent !== undefined, OPEN_TIMEOUT_MS + expectedMs * 2, 'finish sending');
    sender.child.send({ start: { rateMBps, tickMs, messageBytes, bytes } });
    const { ms, sent: sentBytes } = await sent;
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    const report = receiver.next((m) => m.receivedBytes !== undefined, OPEN_TIMEOUT_MS, 'report');
    receiver.child.send({ report: true });
    const { receivedBytes } = await report;
    const after = { sender: reading(sender.pid), receiver: reading(receiver.pid) };

    const receivedMB = receivedBytes / BYTES_PER_MB;
    const mb = Math.max(receivedMB, 1 / BYTES_PER_MB);
    return {
      rateMBps, tickMs, messageBytes,
      seconds: ms / MS_PER_S,
      sentMB: sentBytes / BYTES_PER_MB,
      receivedMB,
      goodputMBps: receivedMB / (ms / MS_PER_S),
      sender: endCost(before.sender, after.sender, mb),
      receiver: endCost(before.receiver, after.receiver, mb),
      builds: { sender: `${senderOpen.build} ${senderOpen.libdatachannel}`, receiver: `${receiverOpen.build} ${receiverOpen.libdatachannel}` },
    };
  } finally {
    for (const p of [sender, receiver]) {
      if (p.child.connected) p.child.send({ stop: true });
    }
  }
}
