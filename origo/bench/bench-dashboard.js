#!/usr/bin/env node
// Dashboard benchmark, against its targets: with 1.3M records, the analysis query behind one grouped
// boxplot (3 modes x 4 groups) <= 500 ms, the downloads page's first page <= 200 ms; ingest >= 5,000 records/s.
// Prints numbers (median of --runs, wall and process CPU time); asserts nothing. The machine is shared: numbers are noisy.
// Usage: npm run bench:dashboard -- [--db FILE] [--records 1300000] [--ingest 20000] [--runs 5] [--json]
//   --db: a store already seeded (npm run seed-logs); without it a temporary one is seeded first (minutes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDuckDbStore, startOrigo } from '../index.js';
import { parseFilter } from '../src/admin/dashboard-filter.js';
import { syntheticRecord } from '../src/seed/synthetic-records.js';

const { values } = parseArgs({ options: {
  db: { type: 'string' }, records: { type: 'string', default: '1300000' }, ingest: { type: 'string', default: '20000' },
  runs: { type: 'string', default: '5' }, json: { type: 'boolean', default: false },
} });
const RECORDS = Number(values.records);
const INGEST = Number(values.ingest);
const RUNS = Number(values.runs);
/** Records per POST /api/logs in the ingest run: a client sends batches, and the API takes at most 1,000. */
const POST_BATCH = 500;
/** Records per transaction when seeding the temporary store. */
const SEED_BATCH = 5000;
const PASSWORD = 'bench-dashboard-password';
const quiet = { info() {}, warn() {}, error() {} };
const log = (/** @type {string} */ s) => { if (!values.json) process.stdout.write(`${s}\n`); };

/** Runs fn `RUNS` times after one warm-up; median wall ms and median process CPU ms (all threads). @param {() => Promise<unknown>} fn */
async function time(fn) {
  await fn();
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wallMs: Math.round(median(wall) * 10) / 10, cpuMs: Math.round(median(cpu) * 10) / 10 };
}

const dir = await mkdtemp(join(tmpdir(), 'origo-bench-dash-'));
const results = /** @type {Record<string, any>} */ ({ records: RECORDS });
try {
  const path = values.db ?? join(dir, 'seeded.duckdb');
  const store = await openDuckDbStore({ path });
  let have = (await store.counts()).clientRecords;
  if (have < RECORDS) {
    log(`seeding ${RECORDS - have} records into ${path} (run npm run seed-logs once and pass --db to skip this)…`);
    for (let i = have; i < RECORDS; i += SEED_BATCH) {
      const batch = [];
      for (let k = i; k < Math.min(RECORDS, i + SEED_BATCH); k++) batch.push(syntheticRecord(k, { seed: 99 }));
      await store.insertClientRecords(batch);
    }
    have = (await store.counts()).clientRecords;
  }
  results.records = have;
  log(`store: ${have} client records (${path})`);

  const boxplotQuery = { metric: /** @type {const} */ ('normalizedGoodput'), groupBy: 'n', filter: parseFilter({ mode: 'parallel-http,uncoded,coded' }) };
  const boxes = await store.boxplot(boxplotQuery);
  results.boxes = boxes.length;
  results.analysisStore = await time(() => store.boxplot(boxplotQuery));
  const pageQuery = { filter: parseFilter({ errors: 'include' }), limit: 50, offset: 0 };
  results.firstPageStore = await time(() => store.listDownloads(pageQuery));
  // A filtered page: the count and the top-N both filter on typed columns (mode, error_code) instead of reading metadata.
  const filteredPageQuery = { filter: parseFilter({ mode: 'coded', errors: 'exclude' }), limit: 50, offset: 0 };
  results.firstPageFilteredStore = await time(() => store.listDownloads(filteredPageQuery));

  // The same two requests end to end: HTTP, session check, JSON.
  const origo = await startOrigo({ proxySecret: 'bench', port: 0, store, adminPassword: PASSWORD, logger: quiet });
  try {
    const login = await fetch(`${origo.url}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
    const cookie = /** @type {string} */ (login.headers.get('set-cookie')).split(';')[0];
    const get = async (/** @type {string} */ p) => {
      const res = await fetch(`${origo.url}${p}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`${p}: HTTP ${res.status}`);
      return res.json();
    };
    results.analysisHttp = await time(() => get('/admin/api/boxplot?metric=normalizedGoodput&groupBy=n&mode=parallel-http,uncoded,coded'));
    results.firstPageHttp = await time(() => get('/admin/api/downloads?limit=50'));
  } finally {
    await origo.close();
  }
  await store.close();
  log(`analysis query (${results.boxes} boxes, quartiles + 1.5 IQR whiskers + outliers, over ${have} records): `
    + `store ${results.analysisStore.wallMs} ms (CPU ${results.analysisStore.cpuMs} ms), HTTP ${results.analysisHttp.wallMs} ms   [target <= 500 ms]`);
  log(`downloads first page (50 rows + total count): store ${results.firstPageStore.wallMs} ms (CPU ${results.firstPageStore.cpuMs} ms), `
    + `HTTP ${results.firstPageHttp.wallMs} ms   [target <= 200 ms]`);
  log(`downloads first page, filtered (mode=coded, failed excluded): store ${results.firstPageFilteredStore.wallMs} ms (CPU ${results.firstPageFilteredStore.cpuMs} ms)`);

  // Ingest through the real API: POST /api/logs (JSON parse, schema validation, one transaction per batch) into a file store.
  const ingestOrigo = await startOrigo({ proxySecret: 'bench', port: 0, db: join(dir, 'ingest.duckdb'), rateLimitPerMinute: 0, logBytesPerMinute: 0, logger: quiet });
  try {
    const bodies = [];
    for (let i = 0; i < INGEST; i += POST_BATCH) {
      bodies.push(JSON.stringify(Array.from({ length: Math.min(POST_BATCH, INGEST - i) }, (_, k) => syntheticRecord(i + k, { seed: 1234 }))));
    }
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const body of bodies) {
      const res = await fetch(`${ingestOrigo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`ingest: HTTP ${res.status} ${await res.text()}`);
    }
    const s = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    results.ingest = { records: INGEST, seconds: Math.round(s * 100) / 100, recordsPerSecond: Math.round(INGEST / s), cpuSeconds: Math.round((c.user + c.system) / 1e4) / 100,
      recordsPerCpuSecond: Math.round(INGEST / ((c.user + c.system) / 1e6)) };
  } finally {
    await ingestOrigo.close();
  }
  log(`ingest via POST /api/logs (${POST_BATCH}/request, file store): ${results.ingest.recordsPerSecond} records/s wall, `
    + `${results.ingest.recordsPerCpuSecond} records per CPU-second (client + server in this process)   [target >= 5,000/s]`);
  if (values.json) process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
