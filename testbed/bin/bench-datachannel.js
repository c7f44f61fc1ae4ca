#!/usr/bin/env node
// `npm run bench:datachannel`: what the WebRTC stack alone costs per MB, without MUTP. A sender and
// a receiver process on loopback, one unordered channel without retransmits (MUTP's), messages of
// one datagram; the sender paced at each given rate by a timer every --tick-ms, as a proxy's pacer.
// Prints each end's CPU ms per MB and its threads' wake-ups per MB, medians of --runs. It is the
// floor under bench:cost's MUTP figures: what a proxy (the sender) and a client (the receiver)
// pay before any of our code runs. Asserts nothing.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { MAX_DATAGRAM_BYTES } from '@mutp/protocol/constants';
import { RTC_BUILDS } from '../src/cost/local-fleet.js';
import { measurePair } from '../src/cost/datachannel-pair.js';
import { benchCli } from '@mutp/testkit/bench-cli';

const DEFAULT_RATES = 'max,20,8,1'; // MB/s: loopback's ceiling, then a proxy's share at bench:cost's and the testbed's rates
const DEFAULT_SECONDS = 3; // per paced transfer: thousands of messages even at 1 MB/s
const DEFAULT_MAX_MB = 64; // the unpaced transfer's size: ~1 s on this machine
const DEFAULT_TICK_MS = 1; // a pacer's timer: the proxy's wakes about this often while it sends
const DEFAULT_RUNS = 3; // medians of 3: one disturbed transfer does not move them
const MAX_RUNS = 100; // a bound that catches a typo
const MAX_RATE_MBPS = 10_000; // the same
const MAX_TRANSFER_MB = 1024; // the same
const MAX_TICK_MS = 1000; // the same

const USAGE = `Usage: npm run bench:datachannel -- [options]

  --build B            the sender's WebRTC build (a proxy's; MUTP_RTC_BUILD): ${RTC_BUILDS.join(' | ')}   [stock]
  --receiver-build B   the receiver's (a Node client's)   [stock]
  --rates LIST         comma-separated MB/s (10^6 bytes), or max: as fast as the channel takes them   [${DEFAULT_RATES}]
  --seconds N          each paced transfer's length   [${DEFAULT_SECONDS}]
  --max-mb N           the unpaced transfer's size   [${DEFAULT_MAX_MB}]
  --tick-ms N          the sender's pacing timer   [${DEFAULT_TICK_MS}]
  --message-bytes N    each message   [${MAX_DATAGRAM_BYTES}: one MUTP datagram, one SCTP packet]
  --runs N             transfers per rate, each between new processes; medians   [${DEFAULT_RUNS}]
  --json FILE          every transfer and the medians as JSON
  -h, --help`;

const { values, usageError } = benchCli({
  name: 'bench:datachannel',
  usage: USAGE,
  options: {
    build: { type: 'string', default: 'stock' }, 'receiver-build': { type: 'string', default: 'stock' },
    rates: { type: 'string', default: DEFAULT_RATES }, seconds: { type: 'string', default: String(DEFAULT_SECONDS) },
    'max-mb': { type: 'string', default: String(DEFAULT_MAX_MB) }, 'tick-ms': { type: 'string', default: String(DEFAULT_TICK_MS) },
    'message-bytes': { type: 'string', default: String(MAX_DATAGRAM_BYTES) }, runs: { type: 'string', default: String(DEFAULT_RUNS) },
    json: { type: 'string' },
  },
});

/** @param {string} name @param {number} min @param {number} max @param {boolean} [integer] */
function numberOption(name, min, max, integer = true) {
  const n = Number(values[name]);
  if (!(Number.isFinite(n) && n >= min && n <= max && (!integer || Number.isInteger(n)))) usageError(`--${name} must be ${integer ? 'an integer' : 'a number'} ${min}..${max}`);
  return n;
}
for (const name of ['build', 'receiver-build']) {
  if (!(/** @type {readonly string[]} */ (RTC_BUILDS)).includes(values[name])) usageError(`--${name} must be one of ${RTC_BUILDS.join(', ')}`);
}
const rates = values.rates.split(',').map((r) => r.trim()).filter(Boolean).map((r) => {
  if (r === 'max') return 0;
  const n = Number(r);
  if (!(Number.isFinite(n) && n > 0 && n <= MAX_RATE_MBPS)) usageError(`--rates: ${JSON.stringify(r)} is neither max nor MB/s in (0, ${MAX_RATE_MBPS}]`);
  return n;
});
if (rates.length === 0) usageError('--rates names no rate');
const seconds = numberOption('seconds', 0.1, 600, false);
const maxMB = numberOption('max-mb', 1, MAX_TRANSFER_MB);
const tickMs = numberOption('tick-ms', 1, MAX_TICK_MS);
const messageBytes = numberOption('message-bytes', 1, 65_536);
const runs = numberOption('runs', 1, MAX_RUNS);

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
const track = (/** @type {import('node:child_process').ChildProcess} */ c) => {
  children.add(c);
  c.once('exit', () => children.delete(c));
};
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => {
    for (const c of children) c.kill('SIGKILL');
    process.exit(130);
  });
}

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rateName = (/** @type {number} */ r) => (r === 0 ? 'max' : `${r} MB/s`);

const transfers = [];
const rows = [];
for (const rateMBps of rates) {
  const bytes = Math.round((rateMBps === 0 ? maxMB : rateMBps * seconds) * 1e6);
  const these = [];
  for (let i = 0; i < runs; i++) {
    const r = await measurePair({ senderBuild: values.build, receiverBuild: values['receiver-build'], rateMBps, tickMs, messageBytes, bytes, track });
    these.push(r);
    transfers.push(r);
    process.stderr.write(`[${rateName(rateMBps)} ${i + 1}/${runs}] ${r.goodputMBps.toFixed(1)} MB/s; sender ${r.sender.msPerMB.toFixed(1)} ms/MB, receiver ${r.receiver.msPerMB.toFixed(1)} ms/MB\n`);
  }
  rows.push({
    rate: rateName(rateMBps),
    goodputMBps: median(these.map((r) => r.goodputMBps)),
    lostShare: median(these.map((r) => 1 - r.receivedMB / r.sentMB)),
    senderMsPerMB: median(these.map((r) => r.sender.msPerMB)),
    receiverMsPerMB: median(these.map((r) => r.receiver.msPerMB)),
    senderSwitchesPerMB: median(these.map((r) => r.sender.switchesPerMB)),
    receiverSwitchesPerMB: median(these.map((r) => r.receiver.switchesPerMB)),
  });
}

const load = loadavg()[0];
const builds = transfers[0].builds;
const lines = [
  `bench:datachannel: the WebRTC stack alone on 127.0.0.1, ${messageBytes} B messages, one unordered channel without retransmits;`,
  `  sender (a proxy): ${builds.sender}; receiver (a client): ${builds.receiver}; paced rates by a ${tickMs} ms timer; medians of ${runs}`,
  '  CPU: every thread of each process (/proc/<pid>/task/*/schedstat) from the first message to 300 ms after the last; per MB received',
  '  wake-ups: voluntary context switches of all its threads (/proc/<pid>/task/*/status)',
  '',
  `${'rate'.padEnd(10)}${'goodput MB/s'.padStart(14)}${'lost'.padStart(8)}${'sender ms/MB'.padStart(15)}${'receiver ms/MB'.padStart(16)}${'sender wake/MB'.padStart(16)}${'receiver wake/MB'.padStart(18)}`,
  ...rows.map((r) => `${r.rate.padEnd(10)}${r.goodputMBps.toFixed(1).padStart(14)}${`${(r.lostShare * 100).toFixed(1)}%`.padStart(8)}` +
    `${r.senderMsPerMB.toFixed(2).padStart(15)}${r.receiverMsPerMB.toFixed(2).padStart(16)}${r.senderSwitchesPerMB.toFixed(0).padStart(16)}${r.receiverSwitchesPerMB.toFixed(0).padStart(18)}`),
  '',
  `machine: 1-min load average at the end ${load.toFixed(2)}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) writeFileSync(values.json, `${JSON.stringify({ transfers, medians: rows, load }, null, 2)}\n`);
