// A constant delay of D each way on a host's eth0: on the client, every client↔proxy (and
// client↔Origo) path gets RTT = 2·D + the bridge's ~0.1 ms. netem where the kernel has it (one
// qdisc per direction); otherwise shaping/delayline (NFQUEUE: each packet's verdict is issued a
// fixed time after it was queued), which holds the whole round trip's 2·D on the packets the host
// receives: a packet its own TCP sent and the line held would still count against the socket's
// TCP Small Queues budget (about 1 ms of its rate; netem lets go of it), so a sender-side delay
// throttled every upload from the host (an origin 20 ms away serving 4 MiB/s: ~270 KiB/s; a
// client's 9 KB log POST: 3 round trips). Both delay TCP and WebRTC/UDP alike.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { codedError } from '@mutp/common/errors';

export const DELAYLINE_DIR = fileURLToPath(new URL('../../shaping/delayline/', import.meta.url));
export const DELAYLINE = `${DELAYLINE_DIR}delayline`;
const DELAYLINE_SOURCE = `${DELAYLINE_DIR}delayline.c`;
const DELAYLINE_BUILD = `${DELAYLINE_DIR}build`;
const DELAY_COMMENT = 'mtb-delay'; // tags our NFQUEUE rules
const QUEUE_NUM = 0; // one queue per namespace: its packets in, one constant delay, so one FIFO keeps their order
const READY_TIMEOUT_MS = 5000; // the delay line binds its queue in milliseconds; 5 s covers a loaded machine
const NETEM_LIMIT_PACKETS = 100_000; // netem's default 1000-packet limit would drop at D·rate > 1000 packets
export const MAX_DELAY_MS = 10_000; // the delay line's own bound

/** @param {string} ns @param {string[]} args */
function inNs(ns, args) {
  return execFileSync('ip', ['netns', 'exec', ns, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Does this kernel have netem? Probed on the namespace's loopback, then removed again.
 * @param {string} ns
 */
export function hasNetem(ns) {
  try {
    inNs(ns, ['tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms']);
  } catch {
    return false;
  }
  inNs(ns, ['tc', 'qdisc', 'del', 'dev', 'lo', 'root']);
  return true;
}

/**
 * Builds shaping/delayline/delayline when it is missing or older than its source.
 * @returns {string} the binary's path
 */
export function ensureDelayLine() {
  const stale = !existsSync(DELAYLINE) || statSync(DELAYLINE).mtimeMs < statSync(DELAYLINE_SOURCE).mtimeMs;
  if (!stale) return DELAYLINE;
  try {
    execFileSync(DELAYLINE_BUILD, [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw codedError('ERR_DELAYLINE_BUILD', `could not build the delay line (needs clang and libnetfilter-queue-dev): ${String(err?.stderr || err?.message).trim()}`, { cause: err });
  }
  return DELAYLINE;
}

/**
 * @typedef {{method: 'netem' | 'nfqueue', delayMs: number, pid: number | null, describe: string, stop: () => void}} DelayInfo
 */

/**
 * Delays everything on a host's eth0 (the client's, or another's: `who`) by `delayMs` each way: a
 * round trip of 2 × delayMs (on the delay line, all of it on the packets the host receives).
 * @param {object} o
 * @param {string} o.hostNs      the host's namespace
 * @param {string} [o.hostDev]    its veth   [eth0]
 * @param {string} [o.who]       the host, as the description names it   [client]
 * @param {boolean} [o.inboundOnly]  delay only the packets the host receives, by `delayMs` (the caller gives the whole RTT)
 * @param {string} o.peerNs      namespace of the veth's other end (the testbed's hub): netem's inbound half goes there
 * @param {string} o.peerDev     the veth's other end
 * @param {number} o.delayMs     integer, 1..MAX_DELAY_MS
 * @param {string} o.logFile     the delay line's stderr (its counters on exit)
 * @param {boolean} [o.forceDelayLine]  use the delay line even where netem exists (tests)
 * @returns {Promise<DelayInfo>}
 */
export async function startDelay({ hostNs, hostDev = 'eth0', who = 'client', inboundOnly = false, peerNs, peerDev, delayMs, logFile, forceDelayLine = false }) {
  if (!(Number.isInteger(delayMs) && delayMs >= 1 && delayMs <= MAX_DELAY_MS)) {
    throw codedError('ERR_BAD_OPTION', `delay must be an integer number of ms in [1, ${MAX_DELAY_MS}], got ${delayMs}`);
  }
  if (!forceDelayLine && hasNetem(hostNs)) {
    const netem = ['netem', 'delay', `${delayMs}ms`, 'limit', String(NETEM_LIMIT_PACKETS)];
    if (!inboundOnly) inNs(hostNs, ['tc', 'qdisc', 'add', 'dev', hostDev, 'root', ...netem]); // host → everyone
    inNs(peerNs, ['tc', 'qdisc', 'add', 'dev', peerDev, 'root', ...netem]); // everyone → host
    return { method: 'netem', delayMs, pid: null, describe: `netem delay ${delayMs} ms on the ${who}'s veth, ${inboundOnly ? 'towards it' : 'both ends'}`, stop() {} };
  }
  const bin = ensureDelayLine();
  // stderr straight into the file: its exit counters are written after the testbed is gone
  const logFd = openSync(logFile, 'a');
  const heldMs = inboundOnly ? delayMs : 2 * delayMs; // the round trip's whole delay, on the packets in
  const child = spawn('ip', ['netns', 'exec', hostNs, bin, '--queue', String(QUEUE_NUM), '--delay-ms', String(heldMs)], { stdio: ['ignore', 'pipe', logFd] });
  closeSync(logFd);
  /** @type {boolean} */
  const realtime = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the delay line did not report ready within ${READY_TIMEOUT_MS} ms (see ${logFile})`)), READY_TIMEOUT_MS);
    /** @param {Error} err */
    function fail(err) {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(Object.assign(err, { code: 'ERR_DELAYLINE_START' }));
    }
    child.once('exit', (code) => fail(new Error(`the delay line exited (${code}) before it was ready (see ${logFile})`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      if (!line.startsWith('delayline: ready')) return fail(new Error(`unexpected delay line output: ${line}`));
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(/ realtime=1\b/.test(line));
    });
  });
  let stopping = false;
  child.once('exit', (code, sig) => {
    // The NFQUEUE rules have no --queue-bypass: without the delay line the client's traffic
    // stops (visibly) instead of silently flowing undelayed.
    if (!stopping) process.stderr.write(`testbed: the delay line exited (${code ?? sig}); the ${who}'s traffic is blocked (see ${logFile})\n`);
  });
  // Appended to filter INPUT. An NF_ACCEPT verdict ends the table's traversal, so the loss rules
  // (setLinkLoss) are inserted at the top of INPUT: a packet is first dropped or kept, then delayed.
  inNs(hostNs, ['iptables', '-A', 'INPUT', '-i', hostDev, '-m', 'comment', '--comment', DELAY_COMMENT, '-j', 'NFQUEUE', '--queue-num', String(QUEUE_NUM)]);
  return {
    method: 'nfqueue', delayMs, pid: child.pid ?? null,
    describe: `shaping/delayline (NFQUEUE, constant ${heldMs} ms per packet${realtime ? ', SCHED_FIFO' : ', normal priority: late on a busy machine'}) on the packets the ${who}'s ${hostDev} receives${inboundOnly ? '' : ` (the round trip of ${delayMs} ms each way)`}`,
    /** Expected end (teardown): the delay line releases what it holds and exits. */
    stop() {
      stopping = true;
      child.kill('SIGTERM');
    },
  };
}
