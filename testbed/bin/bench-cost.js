#!/usr/bin/env node
// `npm run bench:cost`: what each download mode costs in CPU per byte, measured from the processes
// themselves. Origo, the demo origin, 4 proxies and the client agent run on 127.0.0.1 (or, with
// --testbed, in the namespace testbed behind shaped links), each its own Node process; every
// download's CPU is read from /proc before and after it. Prints per
// mode the medians of goodput, normalized goodput and CPU ms per MB of the proxies and of the
// client, each against Range-split HTTP, and the targets. Asserts nothing.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { benchCli } from '@mutp/testkit/bench-cli';
import { demoBytes, MAX_DEMO_BYTES } from '@mutp/demo/media';
import { codedError } from '@mutp/common/errors';
import { createProcessGroup } from '../src/cost/process-group.js';
import { startCostFleet, RTC_BUILDS } from '../src/cost/local-fleet.js';
import { startTestbedCostFleet } from '../src/cost/testbed-fleet.js';
import { parseRates } from '../src/rates.js';
import { MAX_DELAY_MS } from '../src/delay.js';
import { runCostBench, TRAIL_MS } from '../src/cost/run.js';
import { summarize, MODES } from '../src/cost/summary.js';
import { formatReport, formatProgress } from '../src/cost/table.js';
import { runSaturate } from '../src/cost/saturate.js';
import { formatSaturate, SATURATE_AGENTS } from '../src/cost/saturate-summary.js';

const PROXY_COUNT = 4; // paper V: N = 4, the fleet every mode is compared on
const MIB = 2 ** 20; // the demo origin's "MB" in its object names is MiB
const MAX_SIZE_MIB = MAX_DEMO_BYTES / MIB; // the largest object the demo origin serves
const MAX_RUNS = 100; // a bound that catches a typo, not a limit anyone meets
const DEFAULT_RUNS = 3; // medians of 3 per mode: one disturbed download does not move them
const DEFAULT_WARMUPS = 1; // the object cached and the connections open; V8 still compiles for a few more (docs/results/cost)
const DEFAULT_SATURATE_RUNS = 2; // --saturate: each agent's downloads per step (8 agents × 2 objects already)
const TESTBED_RATES = '4x896KiB'; // --testbed: the paper's fleet (Figure 11)
const TESTBED_DELAY_MS = 25; // --testbed: one way, RTT 50 ms as the live measurements
const SIGNAL_NUMBERS = /** @type {Record<string, number>} */ ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }); // exit 128 + n, as shells report a death by signal

const USAGE = `Usage: npm run bench:cost -- [options]

  --size-mb N        object size in MiB (the demo origin's demo-<N>MB.bin), 1..${MAX_SIZE_MIB}   [32]
  --runs N           rounds of every mode after the warm-up; the order rotates per round   [${DEFAULT_RUNS}]
  --warmup N         warm-up downloads of every mode before them, not in the medians: a proxy's V8 compiles
                     its hot code over its first ~5 downloads, so more reads what a long-lived proxy pays   [${DEFAULT_WARMUPS}]
  --modes LIST       comma-separated, of ${MODES.join(', ')}   [all]
  --rtc-build B      the proxies' WebRTC build (MUTP_RTC_BUILD): ${RTC_BUILDS.join(' | ')}   [stock; --testbed: auto]
  --testbed          on the namespace testbed (root; proxies' uploads shaped, the client's packets delayed)
                     instead of loopback; its links bound the goodput, so a smaller object keeps it short: --size-mb 8
  --rates LIST       --testbed: the proxies' upload rates, as the testbed's   [${TESTBED_RATES}]
  --delay-ms MS      --testbed: one-way delay to and from the client   [${TESTBED_DELAY_MS}]
  --json FILE        every download and the summary as JSON
  --saturate         instead: one proxy process and K = ${SATURATE_AGENTS.join(', ')} client agents at once, each downloading
                     through it (proxies: 1) --runs times (default ${DEFAULT_SATURATE_RUNS}), until the proxy uses ~1 core; prints
                     MB per proxy CPU-second per mode (a smaller object keeps it short: --size-mb 8)
  --cpu-prof DIR     the proxies and the client agent(s) each write a CPU profile (.cpuprofile, Chrome
                     DevTools) to DIR when they stop; the profiler's own cost shows in the CPU figures
  --dir DIR          the processes' log files   [test-artifacts/bench-cost/<time>]
  -h, --help`;

const { values, usageError } = benchCli({
  name: 'bench:cost',
  usage: USAGE,
  options: {
    'size-mb': { type: 'string', default: '32' }, runs: { type: 'string' }, modes: { type: 'string', default: MODES.join(',') }, saturate: { type: 'boolean', default: false },
    'rtc-build': { type: 'string' }, warmup: { type: 'string' }, testbed: { type: 'boolean', default: false }, rates: { type: 'string' }, 'delay-ms': { type: 'string' }, json: { type: 'string' }, dir: { type: 'string' }, 'cpu-prof': { type: 'string' },
  },
});
const sizeMiB = Number(values['size-mb']);
if (!(Number.isInteger(sizeMiB) && sizeMiB >= 1 && sizeMiB <= MAX_SIZE_MIB)) usageError(`--size-mb must be an integer 1..${MAX_SIZE_MIB}`);
const runs = Number(values.runs ?? (values.saturate ? DEFAULT_SATURATE_RUNS : DEFAULT_RUNS));
const warmups = Number(values.warmup ?? DEFAULT_WARMUPS);
if (!(Number.isInteger(runs) && runs >= 1 && runs <= MAX_RUNS)) usageError(`--runs must be an integer 1..${MAX_RUNS}`);
if (!(Number.isInteger(warmups) && warmups >= 1 && warmups <= MAX_RUNS)) usageError(`--warmup must be an integer 1..${MAX_RUNS}`);
if (values.saturate && values.warmup !== undefined) usageError('--warmup goes with the mode comparison, not --saturate');
const modes = values.modes.split(',').map((m) => m.trim()).filter(Boolean);
const unknown = modes.filter((m) => !(/** @type {readonly string[]} */ (MODES)).includes(m));
if (modes.length === 0 || unknown.length) usageError(`--modes: unknown ${unknown.join(', ') || '(none given)'}; one or more of ${MODES.join(', ')}`);
if (new Set(modes).size !== modes.length) usageError('--modes names a mode twice');
const onTestbed = values.testbed;
if (!onTestbed && (values.rates !== undefined || values['delay-ms'] !== undefined)) usageError('--rates and --delay-ms go with --testbed');
if (onTestbed && values.saturate) usageError('--saturate runs on loopback only');
if (onTestbed && values['cpu-prof'] !== undefined) usageError('--cpu-prof runs on loopback only');
let rates = null;
if (onTestbed) {
  try {
    rates = parseRates(values.rates ?? TESTBED_RATES);
  } catch (err) {
    usageError(`--rates: ${err.message}`);
  }
  if (rates.length !== PROXY_COUNT) usageError(`--rates must give ${PROXY_COUNT} proxies (the fleet every mode is compared on)`);
}
const delayMs = Number(values['delay-ms'] ?? TESTBED_DELAY_MS);
if (!(Number.isInteger(delayMs) && delayMs >= 1 && delayMs <= MAX_DELAY_MS)) usageError(`--delay-ms must be an integer 1..${MAX_DELAY_MS}`);
// the testbed measures what a deployment runs: the tuned build where it is built
const rtcBuild = /** @type {'stock' | 'auto' | 'tuned'} */ (values['rtc-build'] ?? (onTestbed ? 'auto' : 'stock'));
if (!(/** @type {readonly string[]} */ (RTC_BUILDS)).includes(rtcBuild)) usageError(`--rtc-build must be one of ${RTC_BUILDS.join(', ')}`);
const dir = resolve(values.dir ?? join('test-artifacts', 'bench-cost', new Date().toISOString().replace(/[:.]/g, '-')));
if (values['cpu-prof'] === '') usageError('--cpu-prof needs a folder');
const cpuProfDir = values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']);

const group = createProcessGroup();
let interrupted = false; // a signal came: its handler stops every child and exits
installCleanup(group);
const sizeBytes = sizeMiB * MIB;
try {
  const expectedSha256 = createHash('sha256').update(demoBytes(sizeBytes)).digest('hex');
  if (values.saturate) await saturate(expectedSha256);
  else await compareModes(expectedSha256);
} catch (err) {
  if (interrupted) await new Promise(() => {}); // the signal stopped the agent under the run: its handler exits
  const e = err?.code ? err : codedError('ERR_BENCH', String(err?.stack ?? err));
  process.stderr.write(`bench:cost: ${e.code}: ${e.message}\n`);
  await group.stop();
  process.exit(1);
}

/** The bench proper: every mode on 4 proxies, rounds of downloads measured one at a time. @param {string} expectedSha256 */
async function compareModes(expectedSha256) {
  const where = onTestbed ? `the namespace testbed (${values.rates ?? TESTBED_RATES}, RTT ${2 * delayMs} ms)` : '127.0.0.1';
  process.stderr.write(`bench:cost: starting Origo, the origin, ${PROXY_COUNT} proxies (WebRTC build ${rtcBuild}) and the client on ${where}; logs in ${dir}\n`);
  const fleet = onTestbed
    ? await startTestbedCostFleet({ dir, rates: /** @type {{text: string, bps: number}[]} */ (rates), delayMs, rtcBuild })
    : await startCostFleet({ group, dir, proxyCount: PROXY_COUNT, rtcBuild, cpuProfDir });
  const total = modes.length * (runs + warmups);
  let done = 0;
  const rows = await runCostBench({
    fleet, modes, runs, warmups, url: `${fleet.originUrl}/media/demo-${sizeMiB}MB.bin`, expectedSha256,
    onRow: (row) => process.stderr.write(`${formatProgress(row, ++done, total)}\n`),
  });
  const summary = summarize(rows, { modes });
  const proxyBuilds = [...new Set(fleet.proxies.map((p) => p.rtcBuild?.summary ?? 'unknown'))];
  // the targets are the loopback ones: on the testbed the links bound the goodput
  const meta = { sizeBytes, proxies: PROXY_COUNT, runs, warmups, trailMs: TRAIL_MS, rtcBuild, proxyBuilds, cores: cpus().length, where, targets: !onTestbed };
  process.stdout.write(`${formatReport(summary, meta)}\n`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ meta: { ...meta, modes, node: process.version, logDir: dir, finishedAt: new Date().toISOString() }, downloads: rows, summary }, null, 2)}\n`);
  }
  await fleet.close();
}

/** --saturate: one proxy process, K client agents at once. @param {string} expectedSha256 */
async function saturate(expectedSha256) {
  const agents = Math.max(...SATURATE_AGENTS);
  process.stderr.write(`bench:cost: starting Origo, the origin, 1 proxy (WebRTC build ${rtcBuild}) and ${agents} client agents on 127.0.0.1; logs in ${dir}\n`);
  const fleet = await startCostFleet({ group, dir, proxyCount: 1, agentCount: agents, rtcBuild, cpuProfDir });
  const meta = { sizeBytes, perAgent: runs, rtcBuild, cores: cpus().length };
  const { steps, downloads } = await runSaturate({
    fleet, modes, perAgent: runs, url: `${fleet.originUrl}/media/demo-${sizeMiB}MB.bin`, expectedSha256,
    onStep: (st) => process.stderr.write(`saturate: ${st.mode} K=${st.agents}: ${st.verified}/${st.downloads} ok, ${st.MBps?.toFixed(1)} MB/s, proxy ${st.proxyCores?.toFixed(2)} cores\n`),
  });
  process.stdout.write(`${formatSaturate(steps, meta)}\n`);
  if (values.json) {
    writeFileSync(values.json, `${JSON.stringify({ meta: { ...meta, modes, proxyBuild: fleet.proxies[0].rtcBuild?.summary ?? null, node: process.version, logDir: dir, finishedAt: new Date().toISOString() }, steps, downloads }, null, 2)}\n`);
  }
  await fleet.close();
}

/**
 * Every child stops on every way out: the normal end, an error (above), Ctrl-C, SIGTERM, the
 * parent shell going away (SIGHUP), and a crash (process 'exit': SIGKILL, it cannot wait).
 * @param {ReturnType<typeof createProcessGroup>} g
 */
function installCleanup(g) {
  process.on('exit', () => g.killNow());
  const onSignal = async (/** @type {NodeJS.Signals} */ sig) => {
    if (interrupted) process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15)); // a second signal: 'exit' kills the rest
    interrupted = true;
    process.stderr.write(`\nbench:cost: ${sig}, stopping every process…\n`);
    await g.stop();
    process.exit(128 + (SIGNAL_NUMBERS[sig] ?? 15));
  };
  for (const sig of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) process.on(sig, onSignal);
}
