#!/usr/bin/env node
// Measures Origo's log ingest rate and grouped-quantile query time. Prints numbers; asserts nothing.
// Usage: node origo/bench/bench-store.js [--records 20000] [--rows 1300000]
// The machine is shared: expect noisy numbers, run it more than once.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbStore, startOrigo } from '../index.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '20000' }, rows: { type: 'string', default: '1300000' } } });
const RECORDS = Number(values.records);
/** Paper: 1,300,000 log records over eleven months. */
const ROWS = Number(values.rows);
/** Records per insert call / POST: a client or proxy sends batches, not single records. */
const BATCH = 500;
/** Packet-log entries in the "with packet log" profile: a 1 MB chunk at 1 KB payload. */
const PACKET_LOG_ENTRIES = 1000;
const MODES = ['parallel-http', 'uncoded', 'coded', 'range-http'];
const NS = [1, 2, 4, 6];

/** @param {number} i @param {number} packetLogEntries */
function record(i, packetLogEntries) {
  const n = NS[i % NS.length];
  return {
    id: randomUUID(), clientId: 'bench', startedAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
    mode: MODES[i % MODES.length], n, proxyIds: Array.from({ length: n }, (_, k) => `p${k}`), url: 'https://r1.googlevideo.com/videoplayback',
    objectBytes: 1_000_000, params: { window: 64, generationSize: 32, feedbackEvery: 8, payloadSize: 1000, surplus: 0.05 },
    grossBytes: 1_100_000, netBytes: 1_000_000, durationMs: 500 + (i % 1000), firstPacketMs: 20, serverFetchMs: 40,
    packets: 1100, duplicates: 100, lossEstimate: 0.01,
    perProxy: Array.from({ length: n }, (_, k) => ({ proxyId: `p${k}`, bytes: Math.floor(1_100_000 / n), packets: Math.floor(1100 / n), duplicates: 0, error: null })),
    packetLog: packetLogEntries ? Array.from({ length: packetLogEntries }, (_, k) => [k * 0.5, k % n, 1, k + 1]) : null,
    feedbackLog: packetLogEntries ? Array.from({ length: packetLogEntries / 8 }, (_, k) => k * 4) : null,
    error: null,
  };
}

/** @param {number} count @param {number} entries */
const makeBatches = (count, entries) => {
  const batches = [];
  for (let i = 0; i < count; i += BATCH) batches.push(Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => record(i + k, entries)));
  return batches;
};

const dir = await mkdtemp(join(tmpdir(), 'origo-bench-'));
try {
  for (const entries of [0, PACKET_LOG_ENTRIES]) {
    const label = entries ? `packet log ${entries}` : 'summary only';
    const count = entries ? Math.max(BATCH, Math.floor(RECORDS / 4)) : RECORDS;
    const batches = makeBatches(count, entries);
    const store = await openDuckDbStore({ path: join(dir, `ingest-${entries}.duckdb`) });
    const t0 = performance.now();
    for (const b of batches) await store.insertClientRecords(b);
    const s = (performance.now() - t0) / 1000;
    await store.close();
    console.log(`store ingest (${label}): ${count} records in ${s.toFixed(2)} s = ${Math.round(count / s)} records/s`);
  }

  {
    const count = RECORDS;
    const batches = makeBatches(count, 0);
    const origo = await startOrigo({ proxySecret: 'bench-secret-0123456789', port: 0, db: join(dir, 'http.duckdb'), rateLimitPerMinute: 0, logBytesPerMinute: 0, logger: { info() {}, warn() {}, error() {} } });
    const bodies = batches.map((b) => JSON.stringify(b));
    const t0 = performance.now();
    for (const body of bodies) {
      const res = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`POST /api/logs: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    const s = (performance.now() - t0) / 1000;
    await origo.close();
    console.log(`HTTP ingest (POST /api/logs, batches of ${BATCH}, validate + store): ${count} records in ${s.toFixed(2)} s = ${Math.round(count / s)} records/s`);
  }

  {
    // Synthesize ROWS records directly in SQL (the schema comes from the store), then query through the store.
    const path = join(dir, 'quantiles.duckdb');
    await (await openDuckDbStore({ path })).close();
    const inst = await DuckDBInstance.create(path);
    const con = await inst.connect();
    const t0 = performance.now();
    await con.run(`INSERT INTO client_records (id, started_at, received_at, mode, n, url, gross_bytes, net_bytes, duration_ms, goodput_bps, throughput_bps, normalized_goodput)
      SELECT uuid(), TIMESTAMPTZ '2018-06-01' + to_seconds(i * 20), now(),
             (['parallel-http','uncoded','coded','range-http'])[1 + i % 4], ([1,2,4,6])[1 + (i // 4) % 4], 'u',
             1100000, 1000000, 200 + random() * 4000, 1e9 / (200 + random() * 4000), 1.1e9 / (200 + random() * 4000), 1 / 1.1
      FROM range(${ROWS}) t(i)`);
    console.log(`synthesized ${ROWS} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    con.closeSync();
    inst.closeSync();
    const store = await openDuckDbStore({ path });
    for (let run = 1; run <= 3; run++) {
      const t1 = performance.now();
      const rows = await store.quantilesByGroup({ metric: 'goodput_bps', groupBy: ['mode', 'n'] });
      console.log(`quantiles of goodput by (mode, n) over ${ROWS} rows, run ${run}: ${(performance.now() - t1).toFixed(0)} ms, ${rows.length} groups`);
    }
    // Ingest into the full table: the duplicate check must not scan 1.3M ids per batch.
    const full = makeBatches(Math.min(RECORDS, 5000), 0);
    const t2 = performance.now();
    for (const b of full) await store.insertClientRecords(b);
    const s2 = (performance.now() - t2) / 1000;
    console.log(`store ingest into a table of ${ROWS} rows: ${full.length * BATCH} records in ${s2.toFixed(2)} s = ${Math.round((full.length * BATCH) / s2)} records/s`);
    await store.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
