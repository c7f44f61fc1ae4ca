// The client's download cap: one bottleneck that every flow towards the client shares (the
// proxies' downloads and any cross traffic), as a home user's access link. htb at the cap on the
// hub side of the client's veth (its egress is what the client receives) with a bfifo of the
// queue bound's bytes as the one queue, and a sampler of that queue's backlog.
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { codedError } from '@mutp/common/errors';
import { parseRate } from './rates.js';

/**
 * The queue bound's default, ms at the cap: 2× the testbed's 50 ms RTT. One cubic flow keeps the
 * link busy after a back-off with a queue ≥ 0.43 × its BDP (β = 0.7), so this does not starve
 * TCP; and it is far below the seconds of an unmanaged home router, so a sender that parks its
 * packets in the queue shows as delay instead of being hidden by a deep buffer.
 */
export const DEFAULT_CLIENT_QUEUE_MS = 100;
const MIN_QUEUE_MS = 1; // below a millisecond the bound is shorter than one frame at any cap we shape
const MAX_QUEUE_MS = 10_000; // bufferbloat of seconds is worth emulating; minutes are a typo
const FRAME_BYTES = 1514; // a full Ethernet frame as htb and bfifo count it
const MIN_QUEUE_FRAMES = 10; // a bound below a few frames drops every burst, whatever the cap
const HTB_BURST_MS = 10; // as shaping/shape: htb stays accurate at 1 ms timer granularity
const MIN_HTB_BURST_BYTES = 2 * FRAME_BYTES; // htb cannot send a frame with less
const HTB_CLASS = '1:10'; // the one shaped class: every packet to the client
/** Period of the backlog samples, ms: a 100 ms queue is seen ~10 times as it fills. */
export const QUEUE_SAMPLE_MS = 10;
const FIRST_SAMPLE_TIMEOUT_MS = 5000; // tc starts in milliseconds; 5 s covers a loaded machine
/**
 * Senders hand a veth 64 KB TCP super-packets (TSO/GSO) that cross the bridge whole: a bfifo of a
 * few hundred KB would drop ~45 frames at once, where a real bottleneck drops one. One segment per
 * packet at each sender makes the bottleneck see frames, as a real link does.
 */
const SENDER_GSO_MAX_SEGS = 1;

/** @param {string} ns @param {string[]} args */
function inNs(ns, args) {
  return execFileSync('ip', ['netns', 'exec', ns, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * @typedef {{rateBps: number, queueMs: number}} ClientCap
 * @typedef {ClientCap & {limitBytes: number, dev: string}} Bottleneck
 */

/**
 * The command line's --client-cap RATE [--client-queue-ms MS] → a cap, or null without a rate.
 * @param {string | undefined} rateText  as --rates: 2MiB, 2048KiB (bytes per second)
 * @param {string | undefined} queueMsText
 * @returns {ClientCap | null}
 */
export function parseClientCap(rateText, queueMsText) {
  if (rateText === undefined) {
    if (queueMsText !== undefined) throw codedError('ERR_BAD_OPTION', '--client-queue-ms needs --client-cap');
    return null;
  }
  const queueMs = queueMsText === undefined ? DEFAULT_CLIENT_QUEUE_MS : Number(queueMsText);
  return checkClientCap({ rateBps: parseRate(rateText), queueMs });
}

/** @param {ClientCap} cap @returns {ClientCap} */
export function checkClientCap(cap) {
  if (!(Number.isInteger(cap.rateBps) && cap.rateBps > 0)) throw codedError('ERR_BAD_OPTION', `client cap must be a positive whole number of bytes/s, got ${cap.rateBps}`);
  if (!(Number.isInteger(cap.queueMs) && cap.queueMs >= MIN_QUEUE_MS && cap.queueMs <= MAX_QUEUE_MS)) {
    throw codedError('ERR_BAD_OPTION', `client queue must be an integer number of ms in [${MIN_QUEUE_MS}, ${MAX_QUEUE_MS}], got ${cap.queueMs}`);
  }
  return cap;
}

/** The bfifo's bound in bytes: queueMs at the cap, never below a few frames. @param {ClientCap} cap */
export function queueLimitBytes({ rateBps, queueMs }) {
  return Math.max(MIN_QUEUE_FRAMES * FRAME_BYTES, Math.round((rateBps * queueMs) / 1000));
}

/**
 * Caps what the client receives: htb at the cap on `dev` (the hub side of the client's veth,
 * whose egress is the client's download), its one class queued in a bfifo of the bound.
 * @param {string} hubNs @param {string} dev @param {ClientCap} cap
 * @returns {Bottleneck}
 */
export function capClientDownload(hubNs, dev, cap) {
  checkClientCap(cap);
  const limitBytes = queueLimitBytes(cap);
  const burst = Math.max(MIN_HTB_BURST_BYTES, Math.round((cap.rateBps * HTB_BURST_MS) / 1000));
  const rate = `${cap.rateBps * 8}bit`; // tc's "bps" would mean bytes: bits leave no doubt
  // a fresh root each time: htb cannot be changed in place (a new cap drops what is queued)
  try {
    inNs(hubNs, ['tc', 'qdisc', 'del', 'dev', dev, 'root']);
  } catch {
    /* the veth's default qdisc: nothing of ours to remove */
  }
  inNs(hubNs, ['tc', 'qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '10']);
  inNs(hubNs, ['tc', 'class', 'add', 'dev', dev, 'parent', '1:', 'classid', HTB_CLASS, 'htb', 'rate', rate, 'ceil', rate,
    'burst', String(burst), 'cburst', String(burst), 'quantum', String(FRAME_BYTES)]);
  inNs(hubNs, ['tc', 'qdisc', 'add', 'dev', dev, 'parent', HTB_CLASS, 'handle', '10:', 'bfifo', 'limit', String(limitBytes)]);
  return { ...cap, limitBytes, dev };
}

/**
 * Makes a host's TCP hand its veth one segment per packet (see SENDER_GSO_MAX_SEGS).
 * @param {string} ns @param {string} [dev]
 */
export function segmentAtSender(ns, dev = 'eth0') {
  inNs(ns, ['ip', 'link', 'set', 'dev', dev, 'gso_max_segs', String(SENDER_GSO_MAX_SEGS)]);
}

/**
 * @typedef {{t: number, backlogBytes: number, drops: number, sentBytes: number}} QueueSample  t: performance.now() ms
 */

/**
 * The bfifo's counters from `tc -s -j qdisc show` (null when there is none).
 * @param {string} json
 * @returns {Omit<QueueSample, 't'> | null}
 */
export function parseBfifo(json) {
  /** @type {any[]} */
  let list;
  try {
    list = JSON.parse(json);
  } catch {
    return null;
  }
  const q = Array.isArray(list) ? list.find((x) => x?.kind === 'bfifo') : null;
  return q ? { backlogBytes: Number(q.backlog), drops: Number(q.drops), sentBytes: Number(q.bytes) } : null;
}

/**
 * Samples the bottleneck's queue every intervalMs through one long-lived `tc -batch` (a tc per
 * sample would cost a process start each, 100 times a second, on 2 shared cores). A sample is
 * asked for only when the previous one came back, so a slow moment delays, never piles up.
 * @param {{ns: string, dev: string, intervalMs?: number}} o
 */
export function startQueueSampler({ ns, dev, intervalMs = QUEUE_SAMPLE_MS }) {
  const child = spawn('ip', ['netns', 'exec', ns, 'tc', '-s', '-j', '-force', '-batch', '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
  /** @type {QueueSample[]} */
  const samples = [];
  let waiting = false;
  let stopped = false;
  /** @type {(s: QueueSample) => void} */
  let onFirst = () => {};
  /** @type {Promise<QueueSample>} */
  const first = new Promise((resolve) => (onFirst = resolve));
  const ask = () => {
    if (waiting || stopped) return;
    waiting = true;
    child.stdin.write(`qdisc show dev ${dev}\n`);
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    const q = parseBfifo(line);
    if (q && samples.push({ t: performance.now(), ...q }) === 1) onFirst(samples[0]);
    waiting = false;
  });
  child.stdin.on('error', () => {}); // tc gone (teardown): the samples so far stand
  const timer = setInterval(ask, intervalMs);
  ask();
  return {
    /** Resolves with the first sample; throws ERR_BOTTLENECK when none comes (no bfifo on dev). */
    first: () => {
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(codedError('ERR_BOTTLENECK', `no queue sample of ${dev} in ${ns} within ${FIRST_SAMPLE_TIMEOUT_MS} ms`)), FIRST_SAMPLE_TIMEOUT_MS);
      });
      return /** @type {Promise<QueueSample>} */ (Promise.race([first, late]).finally(() => clearTimeout(timer)));
    },
    samples: () => samples,
    /** The newest sample, or null before the first. */
    latest: () => samples.at(-1) ?? null,
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      child.stdin.end();
      child.kill('SIGTERM');
    },
  };
}
