#!/usr/bin/env node
// Fills an Origo store with synthetic, paper-shaped client records (origo/src/seed/synthetic-records.js).
// Usage: npm run seed-logs -- --records 1300000 [--db ./.data/origo.duckdb] [--seed 1] [--timelines 500]
// Origo must not be running on the same DuckDB file (DuckDB allows one writing process); PostgreSQL does not mind.
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { openStore } from '../index.js';
import { DEFAULT_DB } from '../src/cli-config.js';
import { syntheticRecord } from '../src/seed/synthetic-records.js';

/** Records per transaction: large batches amortise the id check and the commit. */
const BATCH = 5000;
/** One record in this many carries a packet log (timeline page demos); more would only bloat the file. */
const DEFAULT_TIMELINE_EVERY = 2000;
/** Received times are spread over the last this many ms, so "newest first" shows a mix. */
const RECEIVED_SPREAD_MS = 60 * 60 * 1000;

const USAGE = `Usage: seed-logs --records <n> [--db <path>] [--seed <n>] [--timeline-every <n>]
  --records         how many client records to add (the paper had 1,300,000)
  --db              DuckDB file (default ${DEFAULT_DB}, or ORIGO_DB), or a postgres:// URL
  --seed            PRNG seed; the same seed gives the same records (default: random)
  --timeline-every  one record in n gets a packet log (default ${DEFAULT_TIMELINE_EVERY}; 0 = none)`;

let values;
try {
  ({ values } = parseArgs({ options: {
    records: { type: 'string' }, db: { type: 'string' }, seed: { type: 'string' }, 'timeline-every': { type: 'string' }, help: { type: 'boolean', short: 'h' },
  } }));
} catch (err) {
  process.stderr.write(`seed-logs: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const count = Number(values.records);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const timelineEvery = values['timeline-every'] === undefined ? DEFAULT_TIMELINE_EVERY : Number(values['timeline-every']);
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || !Number.isInteger(timelineEvery) || timelineEvery < 0) {
  process.stderr.write(`seed-logs: --records must be a positive integer; --seed and --timeline-every integers\n${USAGE}\n`);
  process.exit(2);
}
const path = values.db ?? process.env.ORIGO_DB ?? DEFAULT_DB;

const store = await openStore(path);
const bar = process.stderr.isTTY
  ? new cliProgress.SingleBar({ format: 'seed-logs [{bar}] {percentage}% | {value}/{total} records | {rate} rec/s | ETA {eta_formatted}' }, cliProgress.Presets.shades_classic)
  : null;
bar?.start(count, 0, { rate: 0 });
const t0 = performance.now();
const now = Date.now();
try {
  for (let i = 0; i < count; i += BATCH) {
    const batch = [];
    for (let k = i; k < Math.min(count, i + BATCH); k++) batch.push(syntheticRecord(k, { seed, withPacketLog: timelineEvery > 0 && k % timelineEvery === 0 }));
    await store.insertClientRecords(batch, { receivedAt: new Date(now - RECEIVED_SPREAD_MS + Math.floor((i / count) * RECEIVED_SPREAD_MS)) });
    const done = Math.min(count, i + BATCH);
    bar?.update(done, { rate: Math.round(done / ((performance.now() - t0) / 1000)) });
    if (!bar && (done === count || (done / BATCH) % 20 === 0)) process.stderr.write(`seed-logs: ${done}/${count}\n`);
  }
} finally {
  bar?.stop();
  await store.close();
}
const s = (performance.now() - t0) / 1000;
process.stdout.write(`seed-logs: ${count} records (seed ${seed}) into ${path} in ${s.toFixed(1)} s = ${Math.round(count / s)} records/s\n`);
