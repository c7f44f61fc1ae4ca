#!/usr/bin/env node
// `npm run campaign -- --preset quick|paper [--out DIR]`: the paper's measurement campaign on
// the one-machine testbed, then the report (Markdown + SVG boxplots). Needs root.
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cpus } from 'node:os';
import { execFileSync } from 'node:child_process';
import { DEFAULT_TCP_CC } from '../src/links.js';
import { parseRates } from '../src/rates.js';
import { startTestbed, checkPrerequisites } from '../src/testbed.js';
import { PRESETS, PAPER_FLEET, DEFAULT_DELAY_MS, MODES, planConditions, planDownloads, seededRandom, runsAlone } from '../src/campaign-plan.js';
import { sctpSender } from '../src/rtc-build.js';
import { MAX_DELAY_MS } from '../src/delay.js';
import { runCampaign, feasibleCompositions } from '../src/campaign-run.js';
import { calibrate } from '../src/calibrate.js';
import { writeReport } from '../src/report.js';
import { createProgress } from '../src/progress.js';
import { joinProxyRecordsFromStore } from '../src/proxy-join.js';

const USAGE = `Usage: npm run campaign -- [options]

Runs the paper's measurement design on the namespace testbed (needs root) and writes a
report: README.md with the claims table and targets, SVG boxplots of FIGURES 11–15,
results.jsonl (one line per download) and Origo's DuckDB with every log record.

  --preset NAME        quick (30 per box, < 10 min) | paper (100 per box) | smoke (CI)
                       | loss (FIGURE 15 alone: the mix at 0, 1, 2, 5% loss, 16 per box,
                       each download alone, ~10–12 min)   [quick]
  --modes LIST         only these modes, comma-separated (${MODES.join(', ')})   [all]
  --out DIR            report folder        [test-artifacts/campaign/<timestamp>]
  --rates LIST         proxy fleet          [${PAPER_FLEET}; smoke: 2x896KiB]
  --per-box N          downloads per box (overrides the preset)
  --concurrency K      downloads at a time, each on its own proxies (overrides the preset)
  --delay-ms MS        one-way delay on every packet to/from the client, RTT = 2·MS; netem,
                       else shaping/delayline (NFQUEUE); 0 = none (the bridge's ~0.1 ms)   [${DEFAULT_DELAY_MS}]
  --tcp-cc ALGO        TCP congestion control of every host (the paper's servers: cubic)   [${DEFAULT_TCP_CC}]
  --seed N             plan seed (same seed, same plan)   [time]
  --no-calibrate       skip the shaping check
  --report-only DIR    re-make the report from DIR/results.jsonl, run nothing
  --tag T, --subnet S  namespace tag and private /24   [camp, 10.219.0]
  -h, --help`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      preset: { type: 'string', default: 'quick' }, modes: { type: 'string' }, out: { type: 'string' }, rates: { type: 'string' }, 'per-box': { type: 'string' },
      concurrency: { type: 'string' }, 'delay-ms': { type: 'string', default: String(DEFAULT_DELAY_MS) }, 'tcp-cc': { type: 'string', default: DEFAULT_TCP_CC }, seed: { type: 'string' }, 'no-calibrate': { type: 'boolean' }, 'report-only': { type: 'string' },
      tag: { type: 'string', default: 'camp' }, subnet: { type: 'string', default: '10.219.0' }, help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (err) {
  console.error(`campaign: ${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const fail = (/** @type {string} */ msg, code = 2) => {
  console.error(`campaign: ${msg}`);
  process.exit(code);
};

if (values['report-only']) {
  const dir = resolve(values['report-only']);
  const rows = readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const meta = existsSync(join(dir, 'meta.json')) ? JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) : {};
  const { claims } = writeReport({ rows, dir, meta });
  console.log(`${claims}\n\nreport: ${join(dir, 'README.md')}`);
  process.exit(0);
}

const preset = PRESETS[/** @type {keyof typeof PRESETS} */ (values.preset)];
if (!preset) fail(`unknown preset "${values.preset}" (${Object.keys(PRESETS).join(', ')})`);
const modes = values.modes ? values.modes.split(',').map((m) => m.trim()) : [...MODES];
const badMode = modes.find((m) => !(/** @type {readonly string[]} */ (MODES)).includes(m));
if (badMode !== undefined) fail(`unknown mode "${badMode}" in --modes (${MODES.join(', ')})`);
const perBox = values['per-box'] ? Number(values['per-box']) : preset.perBox;
const concurrency = values.concurrency ? Number(values.concurrency) : preset.concurrency;
if (!(Number.isInteger(perBox) && perBox > 0)) fail('--per-box must be a positive integer');
if (!(Number.isInteger(concurrency) && concurrency > 0)) fail('--concurrency must be a positive integer');
const delayMs = Number(values['delay-ms']);
if (!(Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= MAX_DELAY_MS)) fail(`--delay-ms must be an integer in [0, ${MAX_DELAY_MS}]`);
const seed = values.seed ? Number(values.seed) : Date.now() % 2 ** 31;
let rates;
try {
  rates = parseRates(values.rates ?? (values.preset === 'smoke' ? '2x896KiB' : PAPER_FLEET));
  checkPrerequisites();
} catch (err) {
  fail(`${err.code}: ${err.message}`);
}
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = resolve(values.out ?? join('test-artifacts', 'campaign', stamp));
mkdirSync(dir, { recursive: true });

const random = seededRandom(seed);
const startedAt = new Date().toISOString();
const t0 = Date.now();
console.error(`campaign: starting the testbed (${rates.length} proxies) in ${dir}`);
const testbed = await startTestbed({ rates, dir, tag: values.tag, subnet: values.subnet, delayMs, tcpCongestion: values['tcp-cc'] });
console.error(`campaign: delay: ${testbed.delay ? testbed.delay.describe : 'none (the bridge\'s ~0.1 ms RTT)'}; TCP congestion control ${testbed.tcpCongestion}`);
// what each proxy serves its data channels with, as it says itself (FIGURE 15 depends on the SCTP sender)
const servedBuilds = await testbed.rtcBuilds();
const sender = sctpSender(servedBuilds.map((b) => b.build));
const unanswered = servedBuilds.filter((b) => !b.build);
console.error(`campaign: proxies' SCTP sender: ${sender ?? 'not reported'}${unanswered.length ? ` (no GET /rtc/build from ${unanswered.map((b) => `${b.id}: ${b.error}`).join(', ')})` : ''}`);
const compositions = feasibleCompositions(testbed.proxies);
const conditions = planConditions({ ...preset, compositions }).filter((c) => modes.includes(c.mode));
if (!conditions.length) fail(`no box of preset ${values.preset} fits this fleet and these modes`);
const lossAlone = 'lossAlone' in preset && preset.lossAlone;
const items = planDownloads(conditions, perBox, random);
let calibration = null;
if (!values['no-calibrate']) {
  calibration = await calibrate(testbed);
  console.error(`campaign: shaping check: ${calibration.text}`);
}
console.error(`campaign: ${conditions.length} boxes × ${perBox} = ${items.length} downloads, ${concurrency} at a time (seed ${seed})`);
const progress = createProgress();
const resultsFile = join(dir, 'results.jsonl');
writeFileSync(resultsFile, '');
let failed = 0;
const rows = await runCampaign({
  testbed, items, concurrency, resultsFile, random, isAlone: (c) => runsAlone(c, { lossAlone }),
  onProgress: (done, total, row) => {
    if (!(/** @type {any} */ (row).ok)) failed++;
    progress.update(done, total, failed ? `(${failed} failed)` : '');
  },
});
const flush = await testbed.flushLogs();
const origoUrl = testbed.origoUrl;
await testbed.close();
const proxyJoin = await joinProxyRecordsFromStore(join(dir, 'origo.duckdb'), rows, 'campaign');
if (proxyJoin) writeFileSync(resultsFile, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));

let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  /* not a git checkout */
}
const meta = {
  preset: values.preset, fleet: rates.map((r) => r.text).join(','), concurrency, perBox, seed, startedAt, finishedAt: new Date().toISOString(),
  elapsedMin: (Date.now() - t0) / 60000, cores: cpus().length, commit, calibration: calibration?.text ?? null, calibrationChecks: calibration?.checks ?? null,
  origoUrl, logsFlushed: flush, proxyJoin, delayMs, delayMethod: testbed.delay?.describe ?? null, tcpCongestion: testbed.tcpCongestion,
  // the proxies' WebRTC build and SCTP max burst (packets, < 0: off): sim:compare models the same transport
  rtcBuilds: [...new Set(testbed.proxies.map((p) => p.rtcBuild?.summary ?? 'unknown'))],
  sctpMaxBurst: sameField(testbed.proxies, 'maxBurst'),
  // each proxy's build as its GET /rtc/build served it, and their SCTP sender ('loss-tolerant' | 'usrsctp' | 'mixed')
  proxyRtcBuilds: servedBuilds, sctpSender: sender, modes,
  // a new association's cwnd (packets; null: libdatachannel's 10), and whether a proxy starts a
  // client's new connection from the path it measured before (the path cache): how sim:compare
  // models a download on new connections
  sctpInitialCwnd: sameField(testbed.proxies, 'initialCwnd'),
  pathCache: true,
};
writeFileSync(join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
const { claims, targets } = writeReport({ rows, dir, meta });
console.log(`${claims}\n`);
for (const t of targets) console.log(`target: ${t.ok === null ? 'no data' : t.ok ? 'met   ' : 'MISSED'}  ${t.name}`);
console.log(`\nreport: ${join(dir, 'README.md')} (${rows.length} downloads, ${failed} failed, ${meta.elapsedMin.toFixed(1)} min)`);

/** A numeric field of the proxies' WebRTC build (max burst, initial cwnd) when all have the same, else null. @param {{rtcBuild?: Record<string, any> | null}[]} proxies @param {string} field */
function sameField(proxies, field) {
  const values = new Set(proxies.map((p) => p.rtcBuild?.[field] ?? null));
  const [only] = values;
  return values.size === 1 && typeof only === 'number' ? only : null;
}
