#!/usr/bin/env node
// `npm run bench:oneoff`: one-off downloads as a user runs them, a new `mutp get` process each,
// on the namespace testbed (needs root). Each get asks for a URL of its own, so the proxies fetch
// the object from the origin first; its wall clock counts the whole process (Node's start, Origo,
// the connections, the transfer, the exit). The rounds rotate over the modes and sizes. Prints
// per mode and size the median wall clock, its rate and its share of the links, against the
// targets for one-offs. Asserts nothing.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCli } from '@mutp/testkit/bench-cli';
import { demoBytes, MAX_DEMO_BYTES } from '@mutp/demo/media';
import { MODES } from '@mutp/proxyclientlib';
import { MAX_DELAY_MS } from '../src/delay.js';
import { MAX_TCP_INITCWND, MIN_TCP_INITCWND } from '../src/links.js';
import { parseRates } from '../src/rates.js';
import { startTestbed } from '../src/testbed.js';
import { formatOneOffs, summarizeOneOffs } from '../src/oneoff/summary.js';

const MUTP_BIN = fileURLToPath(new URL('../../proxyclientlib/bin/mutp.js', import.meta.url));
const MAX_RUNS = 100; // a bound that catches a typo
const MAX_KIB = MAX_DEMO_BYTES / 1024; // the demo origin's largest object
const GET_TIMEOUT_MS = 60_000; // a get that hangs this long is counted as failed and stopped
const CACHE_MODES = ['kept', 'fresh', 'none'];
const MAX_GAP_S = 600; // a bound that catches a typo (minutes, not seconds)

const USAGE = `Usage: npm run bench:oneoff -- [options]   (needs root)

  --modes LIST       of ${MODES.join(', ')}   [coded,range-http]
  --sizes LIST       object sizes in KiB   [1536,8192]
  --runs N           one-offs of every mode and size, after one warm-up get of each mode   [5]
  --cache MODE       kept: the gets share a cache directory, as a user's gets in a row (the last
                     get's proxies, tickets and records); fresh: each get an empty one, as a user's
                     first get ever; none: no cache directory at all (MUTP_CACHE_DIR empty: the
                     record's upload is awaited, as there is nowhere to keep it)   [kept]
  --gap-s S          seconds between two gets, as a user typing them (the warm-ups included)   [0]
  --rates LIST       the proxies and their upload rates   [4x896KiB]
  --delay-ms MS      one-way delay to and from the client   [25]
  --tcp-initcwnd N   the proxies' TCP initial window (${MIN_TCP_INITCWND}..${MAX_TCP_INITCWND})   [40]
  --json FILE        every get and the summary as JSON
  --dir DIR          the testbed's logs   [test-artifacts/bench-oneoff/<time>]
  -h, --help`;

const { values, usageError } = benchCli({
  name: 'bench:oneoff',
  usage: USAGE,
  options: {
    modes: { type: 'string', default: 'coded,range-http' }, sizes: { type: 'string', default: '1536,8192' }, runs: { type: 'string', default: '5' },
    cache: { type: 'string', default: 'kept' }, 'gap-s': { type: 'string', default: '0' }, rates: { type: 'string', default: '4x896KiB' }, 'delay-ms': { type: 'string', default: '25' },
    'tcp-initcwnd': { type: 'string', default: '40' }, json: { type: 'string' }, dir: { type: 'string' },
  },
});
const modes = values.modes.split(',').map((/** @type {string} */ m) => m.trim()).filter(Boolean);
if (modes.length === 0 || modes.some((/** @type {string} */ m) => !(/** @type {readonly string[]} */ (MODES)).includes(m))) usageError(`--modes: one or more of ${MODES.join(', ')}`);
const sizes = values.sizes.split(',').map(Number);
if (sizes.length === 0 || !sizes.every((k) => Number.isInteger(k) && k >= 1 && k <= MAX_KIB)) usageError(`--sizes: integers 1..${MAX_KIB} (KiB)`);
const runs = Number(values.runs);
if (!(Number.isInteger(runs) && runs >= 1 && runs <= MAX_RUNS)) usageError(`--runs must be an integer 1..${MAX_RUNS}`);
if (!CACHE_MODES.includes(values.cache)) usageError(`--cache must be one of ${CACHE_MODES.join(', ')}`);
const gapMs = Number(values['gap-s']) * 1000;
if (!(Number.isFinite(gapMs) && gapMs >= 0 && gapMs <= MAX_GAP_S * 1000)) usageError(`--gap-s must be 0..${MAX_GAP_S}`);
const delayMs = Number(values['delay-ms']);
if (!(Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= MAX_DELAY_MS)) usageError(`--delay-ms must be an integer 0..${MAX_DELAY_MS}`);
const initCwnd = Number(values['tcp-initcwnd']);
if (!(Number.isInteger(initCwnd) && initCwnd >= MIN_TCP_INITCWND && initCwnd <= MAX_TCP_INITCWND)) usageError(`--tcp-initcwnd must be an integer ${MIN_TCP_INITCWND}..${MAX_TCP_INITCWND}`);
let rates;
try {
  rates = parseRates(values.rates);
} catch (err) {
  usageError(`--rates: ${/** @type {Error} */ (err).message}`);
}
const dir = resolve(values.dir ?? join('test-artifacts', 'bench-oneoff', new Date().toISOString().replace(/[:.]/g, '-')));
const work = mkdtempSync(join(tmpdir(), 'bench-oneoff-'));

/** @type {{ [kib: number]: string }} the bytes every get of a size must return */
const expected = Object.fromEntries(sizes.map((k) => [k, createHash('sha256').update(demoBytes(k * 1024)).digest('hex')]));

process.stderr.write(`bench:oneoff: starting the testbed (${values.rates}, RTT ${2 * delayMs} ms, initial window ${initCwnd}); logs in ${dir}\n`);
const tb = await startTestbed({ rates, dir, tag: 'oneoff', subnet: '10.219.7', delayMs, tcpInitCwnd: initCwnd });
const stop = async () => {
  await tb.close();
  rmSync(work, { recursive: true, force: true });
};
process.once('SIGINT', () => { void stop().then(() => process.exit(130)); });
const linksBps = rates.reduce((sum, r) => sum + r.bps, 0);
const loadBefore = loadavg()[0];
let segment = 0;
/** @type {(import('../src/oneoff/summary.js').OneOffRun & {error: string | null})[]} */
const results = [];
try {
  for (const mode of modes) await get(mode, sizes[0]); // warm-up: the proxies' code, and the kept listing
  for (let round = 0; round < runs; round++) {
    for (const mode of modes) {
      for (const kib of sizes) {
        const r = await get(mode, kib);
        results.push(r);
        process.stderr.write(`  ${mode} ${kib} KiB: ${r.ok ? `${r.wallMs.toFixed(0)} ms` : `failed (${r.error})`}\n`);
      }
    }
  }
} finally {
  await stop();
}
const loadAfter = loadavg()[0];
const rows = summarizeOneOffs(results, linksBps);
process.stdout.write(`${formatOneOffs(rows)}\n1-minute load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}; cache ${values.cache}${gapMs > 0 ? `, ${values['gap-s']} s between gets` : ''}; links ${(linksBps / 1024).toFixed(0)} KiB/s\n`);
if (values.json) writeFileSync(values.json, JSON.stringify({ options: { ...values, dir }, loadBefore, loadAfter, results, rows }, null, 2));

/**
 * One `mutp get` in the client's namespace, a URL of its own; its wall clock from spawn to exit.
 * @param {string} mode @param {number} kib
 */
async function get(mode, kib) {
  if (gapMs > 0 && segment > 0) await new Promise((r) => setTimeout(r, gapMs));
  const cacheDir = values.cache === 'kept' ? join(work, 'cache') : values.cache === 'fresh' ? join(work, `cache-${segment}`) : '';
  const out = join(work, 'object.bin');
  rmSync(out, { force: true });
  const args = ['netns', 'exec', tb.topology.client.ns, process.execPath, MUTP_BIN, 'get', tb.objectUrl(kib, segment++),
    '--mode', mode, '--proxies', String(rates.length), '--origo', tb.origoUrl, '--json', '-o', out];
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise((done) => {
    const child = spawn('ip', args, { env: { ...process.env, MUTP_CACHE_DIR: cacheDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let o = '';
    let e = '';
    child.stdout.on('data', (d) => { o += d; });
    child.stderr.on('data', (d) => { e += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), GET_TIMEOUT_MS);
    child.on('close', (c) => { clearTimeout(timer); done({ code: c, stdout: o, stderr: e }); });
  });
  const wallMs = performance.now() - started;
  let stats = null;
  try {
    stats = JSON.parse(stdout);
  } catch { /* no record: the get failed before it */ }
  let exact = false;
  try {
    exact = createHash('sha256').update(readFileSync(out)).digest('hex') === expected[kib];
  } catch { /* no file */ }
  const ok = code === 0 && stats?.error === null && exact;
  const error = ok ? null : (stats?.error?.code ?? (code === 0 ? 'ERR_BENCH_BYTES' : `exit ${code}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
  return { mode, kib, wallMs, ok, firstPacketMs: typeof stats?.firstPacketMs === 'number' ? stats.firstPacketMs : null, error };
}
