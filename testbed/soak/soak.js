#!/usr/bin/env node
// `npm run soak -- --minutes N`: Origo + 4 proxy processes + clients downloading continuously in
// all four modes from a local origin, while proxies are SIGKILLed and restarted at random.
// A benchmark, not a test: it prints figures (noisy on a shared 2-core box) and exits 1 only
// when a log record was lost or stored twice, or a download delivered wrong bytes.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { createClient } from '@mutp/proxyclientlib';
import { startDemoOrigin } from '@mutp/demo/origin';
import { demoBytes } from '@mutp/demo/media';
import { freePort, spawnOrigo } from '@mutp/testkit/origo-process';
import { waitForProxies } from '@mutp/testkit/fleet';
import { createProxyProcess } from './soak-fleet.js';
import { quantile, sampleProcess, slope } from './proc-sample.js';

const ALL_MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const SIZES_KB = [256, 1024, 2048]; // video-chunk sized (paper: 1–2 MB chunks), plus a short one
const SAMPLE_EVERY_MS = 5000; // RSS/fd sampling period: 120 points in 10 min, enough for a slope
const KILL_EVERY_MS = [20_000, 60_000]; // a random proxy is SIGKILLed at a random time in this span
const RESTART_AFTER_MS = [1000, 5000]; // and comes back after this long
const DOWNLOAD_TIMEOUT_MS = 60_000; // a download slower than this is counted as failed (ERR_SOAK_TIMEOUT)
const LOG_DRAIN_TIMEOUT_MS = 60_000; // after the run: client log queue must empty within this
const RSS_TREND_FLAG_MB_PER_MIN = 1; // an upward RSS slope above this over the run is flagged
const FD_TREND_FLAG_PER_MIN = 1; // an fd-count slope above this is flagged (a leaked socket per minute)
const MIN_SAMPLES_FOR_TREND = 6; // fewer points than this (30 s) say nothing about a trend
const WARMUP_FRACTION = 1 / 3; // the slope is fitted after this share of a process's samples: start-up growth (JIT, caches, pools) is not a leak

const { values } = parseArgs({ options: {
  minutes: { type: 'string', default: '10' }, clients: { type: 'string', default: '2' }, proxies: { type: 'string', default: '4' },
  modes: { type: 'string', default: ALL_MODES.join(',') }, 'no-tickets': { type: 'boolean', default: false }, 'no-kill': { type: 'boolean', default: false }, seed: { type: 'string' }, help: { type: 'boolean' },
} });
if (values.help) {
  process.stdout.write(`usage: npm run soak -- [--minutes 10] [--clients 2] [--proxies 4] [--modes ${ALL_MODES.join(',')}] [--no-tickets] [--no-kill]\n`);
  process.exit(0);
}
const MODES = values.modes.split(',');
if (MODES.length === 0 || MODES.some((m) => !ALL_MODES.includes(m))) {
  process.stderr.write(`--modes: a comma-separated subset of ${ALL_MODES.join(',')}\n`);
  process.exit(2);
}
const minutes = Number(values.minutes);
const clientCount = Number(values.clients);
const proxyCount = Number(values.proxies);
const tty = process.stdout.isTTY;
const log = (/** @type {string} */ s) => process.stdout.write(`${tty ? '\r\x1b[K' : ''}${s}\n`);
const rand = (/** @type {number[]} */ [lo, hi]) => lo + Math.random() * (hi - lo);
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
const silent = { warn() {}, info() {}, error() {} };

const dir = mkdtempSync(join(tmpdir(), 'mutp-soak-'));
const db = join(dir, 'origo.duckdb');
const secret = randomBytes(16).toString('hex');
const adminPassword = randomBytes(12).toString('hex');
const expected = new Map(SIZES_KB.map((kb) => [kb, sha(demoBytes(kb * 1024))]));

const origin = await startDemoOrigin();
const origoPort = await freePort();
const origo = await spawnOrigo({ port: origoPort, db, secret, adminPassword });
const extra = values['no-tickets'] ? ['--no-require-tickets'] : [];
const proxies = Array.from({ length: proxyCount }, (_, i) => {
  const p = createProxyProcess({ id: `soak-${i + 1}`, secret, origoUrl: origo.url, allowedHost: `127.0.0.1:${origin.port}` });
  const start = p.start.bind(p);
  p.start = () => start(extra);
  return p;
});
// Ctrl-C: take the child processes down with us (they would outlive a killed parent).
process.once('SIGINT', () => {
  for (const p of proxies) if (p.running && p.pid) process.kill(p.pid, 'SIGKILL');
  origo.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
await Promise.all(proxies.map((p) => p.start()));
await waitForProxies(origo.url, proxyCount);
log(`soak: ${minutes} min, ${clientCount} client loops, ${proxyCount} proxies, origo ${origo.url}, db ${db}, tickets ${values['no-tickets'] ? 'off' : 'on'}`);

const t0 = Date.now();
const endAt = t0 + minutes * 60_000;
/** @type {Map<string, {ok: number, failed: number, latencies: number[]}>} */
const byMode = new Map(MODES.map((m) => [m, { ok: 0, failed: 0, latencies: [] }]));
/** @type {Map<string, number>} */ const reasons = new Map();
/** @type {Map<string, string>} */ const reasonExample = new Map(); // first message per reason, to explain it
let wrongBytes = 0;
const clientIdsSent = new Set();
let kills = 0;

// --- samples: RSS and fds per process incarnation
/** @type {Map<string, {t: number[], rss: number[], fds: number[]}>} */
const series = new Map();
/** Origo's DuckDB file + WAL, MB, and this process's JS heap, MB: to tell a store that grows with its data, or a cache, from a leak. */
const extraSeries = { t: /** @type {number[]} */ ([]), dbMB: /** @type {number[]} */ ([]), heapMB: /** @type {number[]} */ ([]) };
const fileMB = (/** @type {string} */ f) => { try { return statSync(f).size / 2 ** 20; } catch { return 0; } };
const sample = () => {
  const now = (Date.now() - t0) / 60_000;
  extraSeries.t.push(now);
  extraSeries.dbMB.push(fileMB(db) + fileMB(`${db}.wal`));
  extraSeries.heapMB.push(process.memoryUsage().heapUsed / 2 ** 20);
  const procs = [['soak+clients', process.pid], ['origo', origo.pid], ...proxies.filter((p) => p.running).map((p) => [`${p.id}#${p.incarnation}`, p.pid])];
  for (const [name, pid] of procs) {
    const s = sampleProcess(/** @type {number} */ (pid));
    if (!s) continue;
    const row = series.get(/** @type {string} */ (name)) ?? { t: [], rss: [], fds: [] };
    row.t.push(now); row.rss.push(s.rssMB); row.fds.push(s.fds);
    series.set(/** @type {string} */ (name), row);
  }
};
sample();
const sampler = setInterval(sample, SAMPLE_EVERY_MS);

// --- chaos: kill a random proxy now and then, restart it a little later
let stopping = false;
const chaos = (async () => {
  if (values['no-kill']) return;
  while (!stopping) {
    await new Promise((r) => setTimeout(r, rand(KILL_EVERY_MS)));
    if (stopping) break;
    const victim = proxies[Math.floor(Math.random() * proxies.length)];
    await victim.kill();
    kills++;
    await new Promise((r) => setTimeout(r, rand(RESTART_AFTER_MS)));
    await victim.start().catch((err) => log(`restart of ${victim.id} failed: ${err.message}`));
  }
})();

// --- clients
const client = createClient({ origo: origo.url, logger: silent, logSender: { retryBaseMs: 200, retryMaxMs: 5000 } });
let k = 0;
const loop = async () => {
  while (Date.now() < endAt) {
    const mode = MODES[k % MODES.length];
    const kb = SIZES_KB[Math.floor(k / MODES.length) % SIZES_KB.length];
    k++;
    const m = /** @type {{ok: number, failed: number, latencies: number[]}} */ (byMode.get(mode));
    const started = performance.now();
    try {
      const { data, stats } = await client.download(`${origin.url}/media/demo-${kb}KB.bin`, { mode, proxies: Math.min(4, proxyCount), signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      clientIdsSent.add(stats.id.toLowerCase());
      if (data.byteLength !== kb * 1024 || sha(data) !== expected.get(kb)) { wrongBytes++; reasons.set('WRONG_BYTES', (reasons.get('WRONG_BYTES') ?? 0) + 1); }
      m.ok++;
      m.latencies.push(performance.now() - started);
    } catch (err) {
      m.failed++;
      const code = err?.code ?? err?.name ?? 'ERR_UNKNOWN';
      reasons.set(`${mode}: ${code}`, (reasons.get(`${mode}: ${code}`) ?? 0) + 1);
      if (!reasonExample.has(`${mode}: ${code}`)) reasonExample.set(`${mode}: ${code}`, `${String(err?.message).slice(0, 200)} [t=${((Date.now() - t0) / 1000).toFixed(0)} s, kills so far ${kills}]`);
      if (err?.stats?.id && err.stats.proxyIds?.length > 0) clientIdsSent.add(err.stats.id.toLowerCase());
      await new Promise((r) => setTimeout(r, 200)); // no hot loop while the fleet is short of proxies
    }
  }
};
const progress = tty ? setInterval(() => {
  const ok = [...byMode.values()].reduce((s, x) => s + x.ok, 0);
  const failed = [...byMode.values()].reduce((s, x) => s + x.failed, 0);
  const left = Math.max(0, (endAt - Date.now()) / 1000);
  process.stdout.write(`\r\x1b[K${Math.round(left)} s left  ok ${ok}  failed ${failed}  wrong ${wrongBytes}  kills ${kills}  logs queued ${client.logCounters()?.stored ?? 0} stored`);
}, 1000) : null;
await Promise.all(Array.from({ length: clientCount }, loop));
stopping = true;
if (progress) clearInterval(progress);
await chaos;

// --- wind down: every proxy up, logs drained, clean stops, then count what the DB holds
await Promise.all(proxies.filter((p) => !p.running).map((p) => p.start()));
const drained = await client.flushLogs(LOG_DRAIN_TIMEOUT_MS);
sample();
clearInterval(sampler);
client.close();
await Promise.all(proxies.map((p) => p.stop()));
origo.child.kill('SIGTERM');
await origo.exited;
await origin.close();

const instance = await DuckDBInstance.create(db);
const conn = await instance.connect();
const rows = (await conn.runAndReadAll('SELECT lower(id::VARCHAR) AS id, count(*)::INTEGER AS n FROM client_records GROUP BY 1')).getRowObjectsJS();
const proxyRows = (await conn.runAndReadAll('SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS d FROM proxy_records')).getRowObjectsJS()[0];
conn.closeSync();
instance.closeSync();
const stored = new Map(rows.map((r) => [String(r.id), Number(r.n)]));
const lost = [...clientIdsSent].filter((id) => !stored.has(id)).length;
const twice = [...stored.values()].filter((n) => n > 1).length;

// --- report
const elapsedMin = (Date.now() - t0) / 60_000;
log(`\n== soak report: ${elapsedMin.toFixed(1)} min, ${kills} proxy kills ==`);
log('mode           ok  failed   p50 ms   p99 ms');
for (const [mode, m] of byMode) {
  const s = [...m.latencies].sort((a, b) => a - b);
  log(`${mode.padEnd(13)} ${String(m.ok).padStart(4)} ${String(m.failed).padStart(6)} ${quantile(s, 0.5).toFixed(0).padStart(8)} ${quantile(s, 0.99).toFixed(0).padStart(8)}`);
}
log(`failure reasons: ${reasons.size === 0 ? 'none' : [...reasons].map(([r, n]) => `${r} ×${n}`).join(', ')}`);
for (const [r, msg] of reasonExample) log(`  ${r}: e.g. ${msg}`);
log(`wrong bytes delivered: ${wrongBytes}`);
log(`client log records: sent ${clientIdsSent.size}, stored ${[...clientIdsSent].filter((id) => stored.has(id)).length}, lost ${lost}, stored twice ${twice}, queue drained ${drained}; sender counters ${JSON.stringify(client.logCounters())}`);
log(`proxy log records stored: ${proxyRows.n} (distinct ids ${proxyRows.d}); records still queued in a SIGKILLed proxy's memory are lost by design`);
log(`process        samples  RSS first→last MB  slope MB/min  fds first→last  slope fds/min  flag   (slopes fitted after the first ${Math.round(WARMUP_FRACTION * 100)}% of samples)`);
let flagged = 0;
for (const [name, s] of series) {
  const from = Math.floor(s.t.length * WARMUP_FRACTION);
  const rs = slope(s.t.slice(from), s.rss.slice(from));
  const fs = slope(s.t.slice(from), s.fds.slice(from));
  const enough = s.t.length - from >= MIN_SAMPLES_FOR_TREND;
  const flag = enough && (rs > RSS_TREND_FLAG_MB_PER_MIN || fs > FD_TREND_FLAG_PER_MIN) ? 'UPWARD' : (enough ? '' : '(short)');
  if (flag === 'UPWARD') flagged++;
  log(`${name.padEnd(14)} ${String(s.t.length).padStart(7)}  ${s.rss[0].toFixed(0).padStart(6)}→${s.rss.at(-1).toFixed(0).padEnd(8)} ${rs.toFixed(2).padStart(10)}  ${String(s.fds[0]).padStart(6)}→${String(s.fds.at(-1)).padEnd(6)} ${fs.toFixed(2).padStart(10)}  ${flag}`);
}
{
  const from = Math.floor(extraSeries.t.length * WARMUP_FRACTION);
  const tt = extraSeries.t.slice(from);
  log(`origo DuckDB file+WAL: ${extraSeries.dbMB[0].toFixed(1)}→${extraSeries.dbMB.at(-1).toFixed(1)} MB (slope ${slope(tt, extraSeries.dbMB.slice(from)).toFixed(2)} MB/min); soak process JS heap: ${extraSeries.heapMB[0].toFixed(0)}→${extraSeries.heapMB.at(-1).toFixed(0)} MB (slope ${slope(tt, extraSeries.heapMB.slice(from)).toFixed(2)} MB/min)`);
}
log(`upward trends flagged: ${flagged} (thresholds: RSS > ${RSS_TREND_FLAG_MB_PER_MIN} MB/min, fds > ${FD_TREND_FLAG_PER_MIN}/min, over ≥ ${MIN_SAMPLES_FOR_TREND} samples)`);
rmSync(dir, { recursive: true, force: true });
process.exit(lost || twice || wrongBytes || !drained ? 1 : 0);
