#!/usr/bin/env node
// Origo on PostgreSQL, measured (never a test): ingest records/s through POST /api/logs with one and with
// two Origo processes on one database; registration-to-offered latency across two Origos (a proxy registers
// with A, how long until B offers it); the dashboard's boxplot query on PostgreSQL at 1.3M records.
// PostgreSQL is a throw-away server started here with fsync on (testkit/postgres.js).
// Prints numbers and `uptime`; asserts nothing. The machine may be shared and busy: numbers are noisy.
// Usage: npm run bench:postgres -- [--seconds 10] [--posters 8] [--records 1300000] [--base 130000] [--runs 3] [--skip-boxplot | --only-boxplot]
//   --base: records seeded through the store; the rest up to --records are SQL copies of them with new ids
//   (same values, so the same quantiles and the same work per row as distinct records).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { io as connectSocket } from 'socket.io-client';
import { openPostgresStore, proxyToken } from '../index.js';
import { parseBoxplotQuery, parseDownloadsQuery } from '../src/admin/dashboard-filter.js';
import { syntheticRecord } from '../src/seed/synthetic-records.js';
import { CLIENT_RECORD_COLUMNS } from '../src/store/tables.js';
import { startPostgres } from '@mutp/testkit/postgres';
import { freePort, spawnOrigo } from '@mutp/testkit/origo-process';

const { values } = parseArgs({ options: {
  seconds: { type: 'string', default: '10' }, posters: { type: 'string', default: '8' }, records: { type: 'string', default: '1300000' },
  base: { type: 'string', default: '130000' }, runs: { type: 'string', default: '3' }, 'skip-boxplot': { type: 'boolean', default: false },
  'only-boxplot': { type: 'boolean', default: false },
  'latency-samples': { type: 'string', default: '20' },
} });
const SECONDS = Number(values.seconds);
const POSTERS = Number(values.posters);
/** Records per POST: clients batch, and the API takes at most 1,000. */
const POST_BATCH = 500;
/** Records per store transaction while seeding. */
const SEED_BATCH = 5000;
/** How often the latency probe asks B for its proxies, ms: the resolution of the latency figure. */
const POLL_MS = 5;
const SECRET = randomBytes(16).toString('hex');
const ADMIN = 'bench-postgres-admin-password';
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

/** A new database on the bench server. @param {string} url @param {string} name */
async function createDatabase(url, name) {
  const c = new pg.Client(url);
  await c.connect();
  try { await c.query(`CREATE DATABASE ${name}`); } finally { await c.end(); }
  return url.replace(/\/[^/]*$/, `/${name}`);
}

/** @param {string} db @param {number} count */
async function startOrigos(db, count) {
  const origos = [];
  for (let i = 0; i < count; i++) origos.push(await spawnOrigo({ port: await freePort(), db, secret: SECRET, adminPassword: ADMIN }));
  return origos;
}
/** @param {any[]} origos */
async function stopOrigos(origos) {
  for (const o of origos) o.child.kill('SIGTERM');
  await Promise.all(origos.map((o) => o.exited));
}

/** POSTERS loops, spread over the Origos, posting for SECONDS; records stored per second. @param {string[]} urls */
async function ingest(urls) {
  let stored = 0;
  let k = 0;
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: POSTERS }, async (_, p) => {
    while (performance.now() < end) {
      const batch = Array.from({ length: POST_BATCH }, () => syntheticRecord(k++, { seed: 7 }));
      const res = await fetch(`${urls[p % urls.length]}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`POST /api/logs: ${res.status} ${JSON.stringify(body)}`);
      stored += body.stored.length;
    }
  }));
  return Math.round(stored / ((performance.now() - t0) / 1000));
}

/** Registers proxies with A one by one; ms until B lists each. @param {string} a @param {string} b @param {number} samples */
async function registrationLatency(a, b, samples) {
  const ms = [];
  for (let i = 0; i < samples; i++) {
    const id = `lat-${i}`;
    const socket = connectSocket(`${a}/proxy`, { auth: { proxyId: id, token: proxyToken(SECRET, id) }, transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise((resolve, reject) => { socket.once('connect', () => resolve(undefined)); socket.once('connect_error', reject); });
    const t0 = performance.now();
    socket.emit('status', { proxyId: id, publicUrl: `http://127.0.0.1:${20000 + i}/`, location: null, uploadRateBps: 917504, activeSessions: 0, bytesSent: 0, cpu: 0 });
    for (;;) {
      const body = await (await fetch(`${b}/api/proxies?n=64`)).json();
      if (body.proxies.some((/** @type {any} */ p) => p.id === id)) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    ms.push(performance.now() - t0);
    socket.close();
  }
  return { medianMs: Math.round(median(ms) * 10) / 10, p95Ms: Math.round(p95(ms) * 10) / 10, maxMs: Math.round(Math.max(...ms) * 10) / 10 };
}

/** Median wall ms of `runs` calls after one warm-up. @param {() => Promise<unknown>} fn */
async function timed(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < Number(values.runs); i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return Math.round(median(ms));
}

const server = await startPostgres({ durable: true });
console.log(`PostgreSQL (fsync on) at ${server.url}; posters ${POSTERS} x ${POST_BATCH} records per POST, ${SECONDS} s per run`);
try {
  for (const n of values['only-boxplot'] ? [] : [1, 2]) {
    const db = await createDatabase(server.url, `ingest${n}`);
    const origos = await startOrigos(db, n);
    try {
      const rate = await ingest(origos.map((o) => o.url));
      console.log(`ingest, ${n} Origo${n > 1 ? 's' : ''}: ${rate} records/s  | ${uptime()}`);
    } finally {
      await stopOrigos(origos);
    }
  }

  if (!values['only-boxplot']) {
    const latDb = await createDatabase(server.url, 'latency');
    const pair = await startOrigos(latDb, 2);
    try {
      const lat = await registrationLatency(pair[0].url, pair[1].url, Number(values['latency-samples']));
      console.log(`registration (status to A) to offered by B: median ${lat.medianMs} ms, p95 ${lat.p95Ms} ms, max ${lat.maxMs} ms (poll every ${POLL_MS} ms)  | ${uptime()}`);
    } finally {
      await stopOrigos(pair);
    }
  }

  if (!values['skip-boxplot']) {
    const RECORDS = Number(values.records);
    const BASE = Math.min(Number(values.base), RECORDS);
    const url = await createDatabase(server.url, 'boxplot');
    const store = await openPostgresStore({ url });
    try {
      const t0 = performance.now();
      for (let i = 0; i < BASE; i += SEED_BATCH) {
        const batch = [];
        for (let k = i; k < Math.min(BASE, i + SEED_BATCH); k++) batch.push(syntheticRecord(k, { seed: 99 }));
        await store.insertClientRecords(batch);
      }
      const seedS = (performance.now() - t0) / 1000;
      console.log(`seeded ${BASE} records through the store in ${seedS.toFixed(1)} s = ${Math.round(BASE / seedS)} records/s (with per-proxy rows)`);
      const c = new pg.Client(url);
      await c.connect();
      try {
        const cols = CLIENT_RECORD_COLUMNS.map((col) => col.name);
        const select = cols.map((name) => (name === 'id' ? 'gen_random_uuid()' : name)).join(', ');
        for (let have = BASE; have < RECORDS; have += BASE) {
          await c.query(`INSERT INTO client_records (${cols.join(', ')}) SELECT ${select} FROM client_records LIMIT ${Math.min(BASE, RECORDS - have)}`);
        }
        await c.query('VACUUM ANALYZE'); // every table: on PostgreSQL the boxplot reads the records' narrow copy
      } finally {
        await c.end();
      }
      console.log(`client_records: ${(await store.counts()).clientRecords}`);
      for (const groupBy of ['n', 'chunk', 'nRate']) {
        const q = parseBoxplotQuery({ groupBy, metric: 'goodput' });
        const ms = await timed(() => store.boxplot(q));
        console.log(`boxplot goodput by ${groupBy}: ${ms} ms (median of ${values.runs})  | ${uptime()}`);
      }
      const page = parseDownloadsQuery({});
      console.log(`downloads page 1: ${await timed(() => store.listDownloads(page))} ms  | ${uptime()}`);
    } finally {
      await store.close();
    }
  }
} finally {
  await server.stop();
}
