// The simulator's command line: flags -> a base configuration plus sweep axes.
// Every bad value is an Error with code ERR_SIM_BAD_INPUT (the CLI exits 2 on it).

import { parseArgs } from 'node:util';
import { parseRates, parseRate, parseSize, badInput } from './units.js';
import { MODES, DEFAULT_TCP_CC } from './simulate.js';
import { SCTP_SENDERS, DEFAULT_SCTP_SENDER } from './sctp.js';
import { TCP_CC_KINDS } from './tcp-cc.js';

export const USAGE = `Usage: npm run sim -- [options]

Discrete-event simulator of multi-source downloads (see sim/README.md for the model).

  --mode M            coded | uncoded | parallel-http | range-http | all   (default coded)
  --rates LIST        source upload rates, e.g. 4x896KiB or 1x1792KiB,3x896KiB (default 4x896KiB)
                      units: B KB MB KiB MiB (bytes/s), bit kbit Mbit Kibit (bits/s)
  --n N               number of sources: repeats the --rates list cyclically to N entries
  --delay-ms D        one-way delay per source, ms; one value or a comma list per source (25)
  --loss P            per-packet loss probability, both directions; value or list (0)
  --start-delay-ms S  proxy origin-fetch time before its first byte, ms; value or list (0)
  --cap RATE          client download cap, shared FIFO bottleneck (default: none)
  --size SIZE         object size, e.g. 1.5MB (= 1500000 bytes), 2MiB, 1000 (default 1.5MB)
  --window W          MUTP window, packets (default: the client's, from the rates and RTT:
                      protocol windowFromPaths; 816 at 4x896KiB, 1224 at 6x896KiB, RTT 50 ms)
  --generation G      Coded MUTP generation size, packets (24)
  --feedback-every F  packets between feedback messages (protocol default)
  --payload B         payload bytes per packet (1100)
  --surplus K         coded in-flight surplus per generation (protocol default)
  --scheduler S       coded generation scheduler: paper | share (protocol default)
  --overhead-bytes H  lower-layer header bytes per datagram/segment on the wire (0); MUTP adds
                      SCTP (28) and DTLS (37) bytes per packet itself
  --max-burst B       MUTP: SCTP max burst, packets (10: stock usrsctp; 0: off)
  --sctp-sender S     MUTP: the proxies' SCTP sender: loss-tolerant (default: the tuned build's,
                      random loss does not cut its window) | usrsctp (stock: each loss halves it)
  --tcp-cc C          HTTP modes: the proxies' TCP congestion control: cubic (default, Linux's) |
                      bbr (paces at the bottleneck rate, ignores random loss)
  --queue-ms Q        the uplinks' shaper queue in ms of each link's rate (full frames, at least 10
                      packets, as shaping/shape sizes it: the testbed's is 50); a packet that finds
                      it full is dropped (default: unbounded)
  --kept              MUTP: kept paths, as the extension's and the testbed's downloads after
                      the first: each proxy's in-flight cap starts from the path it measured (on
                      this connection, or on an earlier one of the same client)
  --start-cwnd P      MUTP: each SCTP association's cwnd at the start, packets (a new connection's:
                      10, libdatachannel's initial window), or 'kept' (a kept association's,
                      unlimited); one value or a comma list per source, e.g. 10,10,kept,kept
                      for two new connections beside two kept ones (default: kept)
  --new-tcp           HTTP modes: every TCP connection is new (the handshake's round trip before
                      the first request), as after the client's keep-alive (undici: 4 s idle)
  --kept-lists        Range-split HTTP: the client holds each proxy's digest list of the object from
                      an earlier download (it keeps them 30 s; the testbed asks for one URL again
                      and again): no list request, the ranges start at once
  --codec C           coded: rank (default: the same decisions without the payload
                      arithmetic) | exact (the real RLNC encode/decode of every packet)
  --seeds K           runs per configuration, seeds 1..K (20)
  --first-seed S      first seed (1)
  --sweep AXIS=V1,V2  cross product over an axis; repeat the flag, or give several
                      space-separated AXIS=LIST items in one. Axes: mode n rates window
                      generation feedbackEvery payload surplus loss delayMs startDelayMs size
                      sctpSender tcpCc.
                      Alternatives of 'rates' are separated by '/':
                      --sweep rates=4x896KiB/1x1792KiB,3x896KiB
  --json              one JSON object per configuration, one per line
  --csv               CSV with a header line
  --bench             measure simulated downloads per second of wall time and exit
  --help              this text

Example:
  npm run sim -- --mode coded --rates 4x896KiB --delay-ms 25 --loss 0 --size 1.5MB \\
    --window 240 --generation 24 --seeds 20 --json`;

const OPTIONS = /** @type {const} */ ({
  mode: { type: 'string', default: 'coded' },
  rates: { type: 'string', default: '4x896KiB' },
  n: { type: 'string' },
  'delay-ms': { type: 'string', default: '25' },
  loss: { type: 'string', default: '0' },
  'start-delay-ms': { type: 'string', default: '0' },
  cap: { type: 'string' },
  size: { type: 'string', default: '1.5MB' },
  window: { type: 'string' },
  generation: { type: 'string', default: '24' },
  'feedback-every': { type: 'string' },
  payload: { type: 'string', default: '1100' },
  surplus: { type: 'string' },
  scheduler: { type: 'string' },
  'overhead-bytes': { type: 'string', default: '0' },
  'max-burst': { type: 'string', default: '10' },
  'sctp-sender': { type: 'string', default: DEFAULT_SCTP_SENDER },
  'tcp-cc': { type: 'string', default: DEFAULT_TCP_CC },
  kept: { type: 'boolean', default: false },
  'new-tcp': { type: 'boolean', default: false },
  'kept-lists': { type: 'boolean', default: false },
  'start-cwnd': { type: 'string' },
  'queue-ms': { type: 'string' },
  codec: { type: 'string', default: 'rank' },
  seeds: { type: 'string', default: '20' },
  'first-seed': { type: 'string', default: '1' },
  sweep: { type: 'string', multiple: true },
  json: { type: 'boolean', default: false },
  csv: { type: 'boolean', default: false },
  bench: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
});

/**
 * @param {string} text
 * @param {string} name
 * @param {number} min
 * @param {number} max
 */
export function parseInteger(text, name, min, max) {
  const v = Number(text);
  if (!/^\s*[0-9]+\s*$/.test(String(text)) || !Number.isSafeInteger(v) || v < min || v > max) {
    throw badInput(`--${name} must be an integer ${min}..${max}, got '${text}'`);
  }
  return v;
}

/**
 * @param {string} text
 * @param {string} name
 * @param {number} min
 * @param {number} max  exclusive when `maxExclusive`
 * @param {boolean} [maxExclusive]
 */
function parseNumber(text, name, min, max, maxExclusive = false) {
  const v = Number(text);
  const tooBig = maxExclusive ? v >= max : v > max;
  if (String(text).trim() === '' || !Number.isFinite(v) || v < min || tooBig) {
    throw badInput(`--${name} must be a number in [${min}, ${max}${maxExclusive ? ')' : ']'}, got '${text}'`);
  }
  return v;
}

/**
 * A value or a comma list (one per source).
 * @param {string} text
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {boolean} [maxExclusive]
 * @returns {number|number[]}
 */
function parseNumberList(text, name, min, max, maxExclusive) {
  const parts = String(text).split(',');
  const values = parts.map((p) => parseNumber(p, name, min, max, maxExclusive));
  return values.length === 1 ? values[0] : values;
}

/**
 * --start-cwnd: packets or 'kept' (Infinity), one value or a comma list per source.
 * @param {string} text
 * @returns {number | number[]}
 */
function parseStartCwnd(text) {
  const values = String(text).split(',').map((p) => (p.trim() === 'kept' ? Infinity : parseInteger(p, 'start-cwnd', 1, 1_000_000)));
  return values.length === 1 ? values[0] : values;
}

/** Sweep axis -> [flag name, parser of one alternative]. */
const AXES = {
  mode: ['mode', (/** @type {string} */ v) => parseMode(v)],
  n: ['n', (/** @type {string} */ v) => parseInteger(v, 'n', 1, 32)],
  rates: ['rates', (/** @type {string} */ v) => parseRates(v)],
  window: ['window', (/** @type {string} */ v) => parseInteger(v, 'window', 1, 8192)],
  generation: ['generation', (/** @type {string} */ v) => parseInteger(v, 'generation', 1, 255)],
  feedbackEvery: ['feedback-every', (/** @type {string} */ v) => parseInteger(v, 'feedback-every', 1, 65535)],
  payload: ['payload', (/** @type {string} */ v) => parseInteger(v, 'payload', 16, 1200)],
  surplus: ['surplus', (/** @type {string} */ v) => parseInteger(v, 'surplus', 0, 255)],
  loss: ['loss', (/** @type {string} */ v) => parseNumber(v, 'loss', 0, 1, true)],
  delayMs: ['delay-ms', (/** @type {string} */ v) => parseNumber(v, 'delay-ms', 0, 60_000)],
  startDelayMs: ['start-delay-ms', (/** @type {string} */ v) => parseNumber(v, 'start-delay-ms', 0, 60_000)],
  size: ['size', (/** @type {string} */ v) => checkSize(parseSize(v))],
  sctpSender: ['sctp-sender', (/** @type {string} */ v) => parseChoice(v, 'sctp-sender', SCTP_SENDERS)],
  tcpCc: ['tcp-cc', (/** @type {string} */ v) => parseChoice(v, 'tcp-cc', TCP_CC_KINDS)],
};

/** @param {string} v @param {string} name @param {readonly string[]} choices */
function parseChoice(v, name, choices) {
  if (!choices.includes(v)) throw badInput(`--${name} must be one of ${choices.join(', ')}, got '${v}'`);
  return v;
}

/** @param {number} bytes */
function checkSize(bytes) {
  // Objects above 256 MiB would need that much memory per run: refuse rather than thrash.
  if (bytes > 256 * 1024 * 1024) throw badInput(`--size ${bytes} bytes is above the simulator's 256 MiB limit`);
  return bytes;
}

/** @param {string} v */
function parseMode(v) {
  if (v !== 'all' && !MODES.includes(v)) throw badInput(`--mode must be one of ${MODES.join(', ')}, all; got '${v}'`);
  return v;
}

/**
 * @param {string[]} items  the --sweep values
 * @returns {Array<{axis: string, values: any[]}>}
 */
export function parseSweep(items) {
  /** @type {Array<{axis: string, values: any[]}>} */
  const axes = [];
  for (const item of items.flatMap((s) => s.trim().split(/\s+/)).filter(Boolean)) {
    const m = /^([A-Za-z-]+)=(.+)$/.exec(item);
    if (!m) throw badInput(`bad --sweep item '${item}' (expected AXIS=V1,V2, e.g. n=2,4,6)`);
    const axis = m[1] === 'feedback-every' ? 'feedbackEvery' : m[1] === 'g' ? 'generation' : m[1];
    const spec = /** @type {Record<string, [string, (v: string) => any]>} */ (/** @type {unknown} */ (AXES))[axis];
    if (!spec) throw badInput(`unknown --sweep axis '${m[1]}' (axes: ${Object.keys(AXES).join(', ')})`);
    if (axes.some((a) => a.axis === axis)) throw badInput(`--sweep axis '${axis}' given twice`);
    const alternatives = axis === 'rates' ? m[2].split('/') : m[2].split(',');
    const values = alternatives.map((v) => spec[1](v.trim()));
    if (axis === 'mode' && values.includes('all')) throw badInput("--sweep mode=all: list the modes instead");
    axes.push({ axis, values });
  }
  return axes;
}

/**
 * Parse argv (without node and script) into options.
 * @param {string[]} argv
 */
export function parseCli(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  } catch (e) {
    throw badInput(e.message);
  }
  const v = /** @type {Record<string, any>} */ (parsed.values);
  if (v.json && v.csv) throw badInput('give --json or --csv, not both');
  const base = {
    mode: parseMode(v.mode),
    rates: parseRates(v.rates),
    n: v.n === undefined ? null : parseInteger(v.n, 'n', 1, 32),
    delayMs: parseNumberList(v['delay-ms'], 'delay-ms', 0, 60_000),
    loss: parseNumberList(v.loss, 'loss', 0, 1, true),
    startDelayMs: parseNumberList(v['start-delay-ms'], 'start-delay-ms', 0, 60_000),
    downCapBps: v.cap === undefined ? Infinity : parseRate(v.cap),
    size: checkSize(parseSize(v.size)),
    window: v.window === undefined ? undefined : parseInteger(v.window, 'window', 1, 8192),
    generation: parseInteger(v.generation, 'generation', 1, 255),
    feedbackEvery: v['feedback-every'] === undefined ? undefined : parseInteger(v['feedback-every'], 'feedback-every', 1, 65535),
    payload: parseInteger(v.payload, 'payload', 16, 1200),
    surplus: v.surplus === undefined ? undefined : parseInteger(v.surplus, 'surplus', 0, 255),
    scheduler: v.scheduler,
    overheadBytes: parseInteger(v['overhead-bytes'], 'overhead-bytes', 0, 1000),
    maxBurst: parseInteger(v['max-burst'], 'max-burst', 0, 100_000),
    sctpSender: parseChoice(v['sctp-sender'], 'sctp-sender', SCTP_SENDERS),
    tcpCc: parseChoice(v['tcp-cc'], 'tcp-cc', TCP_CC_KINDS),
    kept: v.kept,
    newTcp: v['new-tcp'],
    keptLists: v['kept-lists'],
    startCwnd: v['start-cwnd'] === undefined ? undefined : parseStartCwnd(v['start-cwnd']),
    queueMs: v['queue-ms'] === undefined ? undefined : parseInteger(v['queue-ms'], 'queue-ms', 1, 60_000),
    codec: v.codec,
    seeds: parseInteger(v.seeds, 'seeds', 1, 100_000),
    firstSeed: parseInteger(v['first-seed'], 'first-seed', 0, 2 ** 31),
  };
  if (base.scheduler !== undefined && base.scheduler !== 'paper' && base.scheduler !== 'share') {
    throw badInput(`--scheduler must be paper or share, got '${base.scheduler}'`);
  }
  if (base.codec !== 'rank' && base.codec !== 'exact') throw badInput(`--codec must be rank or exact, got '${base.codec}'`);
  return {
    base,
    sweep: parseSweep(v.sweep ?? []),
    format: v.json ? 'json' : v.csv ? 'csv' : 'table',
    bench: v.bench,
    help: v.help,
  };
}
