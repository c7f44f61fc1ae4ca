#!/usr/bin/env node
// `npm run bench:hostile [-- --seconds 30 --junk-seconds 20 --rtc-seconds 15]`: the hostile-peer attacks against
// a real local fleet (127.0.0.1/127.0.0.2), with the figures they are judged by. Printed, not asserted.
//  1. status flood: one proxy with a valid token sends 5,000 statuses/s → Origo's /healthz p99, other proxies'
//     log-batch ack p99, Origo's peak RSS;
//  2. junk fill: POST /api/logs with a 1 MiB unknown field, as fast as answered → database growth, answer codes;
//  3. WebRTC flood: never-connecting offers from 127.0.0.2 → a client at 127.0.0.1 connecting, each second;
//  4. spool: a proxy SIGKILLed with 30 records Origo never acked → records stored after a restart, duplicates.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { io as connectSocket } from 'socket.io-client';
import { issueTicket, proxyToken, startOrigo } from '@mutp/origo';
import { startProxy } from '@mutp/proxy';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { parseSpool } from '@mutp/proxy/log-spool';
import { startDemoOrigin } from '@mutp/demo/origin';
import { freePort, spawnOrigo } from '@mutp/testkit/origo-process';
import { deadOffer, fetchFrom, spawnProxy } from './helpers/hostile-tools.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' }, 'junk-seconds': { type: 'string', default: '20' }, 'rtc-seconds': { type: 'string', default: '15' } } });
const FLOOD_S = Number(values.seconds);
const JUNK_S = Number(values['junk-seconds']);
const RTC_S = Number(values['rtc-seconds']);
const STATUSES_PER_S = 5000;
const FLOOD_TICK_MS = 10;
const HONEST_PROXIES = 3;
const HONEST_BATCH_EVERY_MS = 200;
const PROBE_EVERY_MS = 50;
const silent = { info() {}, warn() {}, error() {} };
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const pct = (/** @type {number[]} */ xs, /** @type {number} */ p) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const rssMb = (/** @type {number} */ pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const dbBytes = (/** @type {string} */ db) => [db, `${db}.wal`].reduce((n, f) => { try { return n + statSync(f).size; } catch { return n; } }, 0);
const MiB = 1024 * 1024;

/** @param {string} url @param {string} id @param {string} secret */
function proxySocket(url, id, secret) {
  return connectSocket(`${url}/proxy`, { auth: { proxyId: id, token: proxyToken(secret, id) }, transports: ['websocket'], forceNew: true, reconnection: false });
}
/** @param {string} id */
const status = (id, i = 0) => ({ proxyId: id, publicUrl: `http://127.0.0.1:${9000 + (i % 1000)}/`, location: null, uploadRateBps: 917504, activeSessions: i % 50, bytesSent: i, cpu: 0.1 });
/** @param {string} id */
const proxyRecord = (id) => ({ id: randomUUID(), proxyId: id, downloadId: 'dl', startedAt: new Date().toISOString(), mode: 'http', url: 'http://127.0.0.1/x', packetsSent: 1, bytesSent: 1000, durationMs: 5 });

async function statusFlood() {
  const dir = mkdtempSync(join(tmpdir(), 'mutp-bench-hostile-'));
  const secret = randomBytes(16).toString('hex');
  const origo = await spawnOrigo({ port: await freePort(), db: join(dir, 'origo.duckdb'), secret, adminPassword: randomBytes(12).toString('hex') });
  const rss0 = rssMb(origo.pid);
  const honest = await Promise.all(Array.from({ length: HONEST_PROXIES }, async (_, i) => {
    const s = proxySocket(origo.url, `honest-${i}`, secret);
    await new Promise((r) => s.once('connect', () => r(undefined)));
    s.emit('status', status(`honest-${i}`));
    return s;
  }));
  let sent = 0; let connects = 0; let refusedConnects = 0; let disconnects = 0;
  let flooder = proxySocket(origo.url, 'flooder', secret);
  const wire = (/** @type {any} */ s) => {
    s.on('connect', () => { connects++; });
    s.on('connect_error', () => { refusedConnects++; });
    s.on('disconnect', () => { disconnects++; });
  };
  wire(flooder);
  const end = Date.now() + FLOOD_S * 1000;
  const floodTimer = setInterval(() => {
    if (flooder.connected) {
      for (let i = 0; i < (STATUSES_PER_S * FLOOD_TICK_MS) / 1000; i++) flooder.emit('status', status('flooder', sent++));
    } else if (!flooder.active) { // refused or disconnected: the attacker reconnects at once
      flooder.close();
      flooder = proxySocket(origo.url, 'flooder', secret);
      wire(flooder);
    }
  }, FLOOD_TICK_MS);
  /** @type {number[]} */ const healthMs = []; /** @type {number[]} */ const ackMs = []; let rssMax = rss0; let ackFailures = 0;
  const probes = (async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const ok = await fetch(`${origo.url}/healthz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.ok, () => false);
      healthMs.push(ok ? performance.now() - t0 : 10_000);
      rssMax = Math.max(rssMax, rssMb(origo.pid));
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const batches = honest.map(async (s, i) => {
    while (Date.now() < end) {
      const t0 = performance.now();
      const ack = await s.timeout(10_000).emitWithAck('logs', [proxyRecord(`honest-${i}`), proxyRecord(`honest-${i}`)]).catch(() => null);
      if (ack?.ok) ackMs.push(performance.now() - t0); else ackFailures++;
      await sleep(HONEST_BATCH_EVERY_MS);
    }
  });
  await Promise.all([probes, ...batches]);
  clearInterval(floodTimer);
  flooder.close();
  for (const s of honest) s.close();
  const rssEnd = rssMb(origo.pid);
  origo.child.kill('SIGTERM');
  await origo.exited;
  rmSync(dir, { recursive: true, force: true });
  console.log(`1. status flood: ${sent} statuses in ${FLOOD_S} s (target ${STATUSES_PER_S}/s) from one proxy; its connects ${connects}, refused ${refusedConnects}, disconnects ${disconnects}`);
  console.log(`   /healthz p50 ${pct(healthMs, 50).toFixed(1)} ms, p99 ${pct(healthMs, 99).toFixed(1)} ms, max ${Math.max(...healthMs).toFixed(1)} ms (${healthMs.length} probes; target p99 < 100 ms)`);
  console.log(`   other proxies' log-batch ack p50 ${pct(ackMs, 50).toFixed(1)} ms, p99 ${pct(ackMs, 99).toFixed(1)} ms (${ackMs.length} acks, ${ackFailures} failed; target p99 < 1000 ms)`);
  console.log(`   Origo RSS ${rss0.toFixed(0)} MB at start, peak ${rssMax.toFixed(0)} MB, end ${rssEnd.toFixed(0)} MB (target < 400 MB)`);
}

async function junkFill() {
  const dir = mkdtempSync(join(tmpdir(), 'mutp-bench-junk-'));
  const db = join(dir, 'origo.duckdb');
  const secret = randomBytes(16).toString('hex');
  // the production default limits (no --rate-limit 0 etc.): the attack meets what a deployment runs
  const origo = await spawnOrigo({ port: await freePort(), db, secret, adminPassword: randomBytes(12).toString('hex'), defaults: true });
  await sleep(500);
  const before = dbBytes(db);
  const junk = 'x'.repeat(MiB);
  const codes = /** @type {Record<string, number>} */ ({});
  let sentBytes = 0;
  const end = Date.now() + JUNK_S * 1000;
  while (Date.now() < end) {
    const body = JSON.stringify([{ id: randomUUID(), startedAt: new Date().toISOString(), mode: 'coded', n: 1, proxyIds: ['p'], url: 'http://x/', grossBytes: 1, netBytes: 1, durationMs: 1, junk }]);
    const res = await fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await res.json();
    const key = `${res.status} ${answer.error?.code ?? answer.rejected?.[0]?.code ?? ''}`.trim();
    codes[key] = (codes[key] ?? 0) + 1;
    sentBytes += body.length;
  }
  origo.child.kill('SIGTERM');
  await origo.exited;
  const after = dbBytes(db);
  rmSync(dir, { recursive: true, force: true });
  console.log(`2. junk fill: ${(sentBytes / MiB).toFixed(0)} MiB posted in ${JUNK_S} s (1 MiB unknown field per record); answers ${JSON.stringify(codes)}`);
  console.log(`   database ${(before / MiB).toFixed(2)} → ${(after / MiB).toFixed(2)} MiB after shutdown: +${((after - before) / MiB).toFixed(2)} MiB (target < 5 MiB)`);
}

async function rtcFlood() {
  const secret = randomBytes(16).toString('hex');
  const id = 'rtc-bench';
  const proxy = await startProxy({ id, token: proxyToken(secret, id), host: '127.0.0.1', port: 0, requireTickets: true, logger: silent });
  const ticket = (/** @type {string} */ clientId) => issueTicket({ secret, clientId, proxyId: id, now: Date.now() }).ticket;
  /** One legitimate connect from 127.0.0.1; its time in ms, or null when it failed. */
  const legit = async () => {
    const t0 = performance.now();
    try {
      const link = await connectPeer({ url: proxy.url, RTCPeerConnection: /** @type {any} */ (RTCPeerConnection), rtcConfig: { bindAddress: '127.0.0.1' },
        fetch: /** @type {any} */ ((/** @type {string} */ u, /** @type {any} */ init) => fetch(u, { ...init, body: JSON.stringify({ ...JSON.parse(init.body), ticket: ticket(`legit-${randomUUID()}`) }) })) });
      link.close();
      return performance.now() - t0;
    } catch {
      return null;
    }
  };
  /** @type {number[]} */ const baseline = [];
  for (let i = 0; i < RTC_S / 2; i++) {
    const ms = await legit();
    if (ms !== null) baseline.push(ms);
    await sleep(1000);
  }
  const sdp = await deadOffer();
  const flood = fetchFrom('127.0.0.2');
  const end = Date.now() + RTC_S * 1000;
  const codes = /** @type {Record<string, number>} */ ({});
  let n = 0;
  const flooders = Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      const res = await flood(`${proxy.url}/rtc/offer`, { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'offer', sdp, ticket: ticket(`flood-${n++}`) }) }).catch(() => null);
      const key = res ? `${res.status} ${res.ok ? '' : (await res.json()).error?.code}`.trim() : 'error';
      codes[key] = (codes[key] ?? 0) + 1;
    }
  });
  /** @type {number[]} */ const connectMs = []; let failed = 0;
  await sleep(1000); // the flood holds its slots first
  while (Date.now() < end) {
    const ms = await legit();
    if (ms === null) failed++; else connectMs.push(ms);
    await sleep(1000);
  }
  await Promise.all(flooders);
  await proxy.close();
  console.log(`3. WebRTC flood: ${n} never-connecting offers from 127.0.0.2 in ${RTC_S} s; answers ${JSON.stringify(codes)}`);
  const fmt = (/** @type {number[]} */ xs) => xs.map((x) => x.toFixed(0)).join(' ');
  console.log(`   client at 127.0.0.1 before the flood: connect ms ${fmt(baseline)}`);
  console.log(`   client at 127.0.0.1 during the flood: connect ms ${fmt(connectMs)}`);
  console.log(`   during the flood: ${connectMs.length} connects, ${failed} failed; connect time p50 ${pct(connectMs, 50).toFixed(0)} ms, max ${Math.max(...connectMs).toFixed(0)} ms (target < 1000 ms every time)`);
}

async function spoolKill() {
  const RECORDS = 30;
  const dir = mkdtempSync(join(tmpdir(), 'mutp-bench-spool-'));
  const spool = join(dir, 'proxy.spool');
  const secret = randomBytes(16).toString('hex');
  const origin = await startDemoOrigin({ host: '127.0.0.1', port: 0 });
  const origoPort = await freePort();
  const id = 'spool-bench';
  const args = ['--port', '0', '--id', id, '--token', proxyToken(secret, id), '--origo', `http://127.0.0.1:${origoPort}`, '--no-require-tickets',
    '--allowed-hosts', `127.0.0.1:${origin.port}`, '--allow-private', '--rate-limit', '0', '--log-spool', spool];
  let proxy = await spawnProxy(args);
  for (let i = 0; i < RECORDS; i++) await (await fetch(`${proxy.url}/fetch?url=${encodeURIComponent(`${origin.url}/media/demo-${16 + i}KB.bin`)}`)).arrayBuffer();
  await sleep(300); // one fsync period
  const spooled = parseSpool(readFileSync(spool, 'utf8')).records.length;
  proxy.child.kill('SIGKILL');
  await proxy.exited;
  const origo = await startOrigo({ proxySecret: secret, host: '127.0.0.1', port: origoPort, db: ':memory:', logger: silent, allowPrivateProxyUrls: true });
  proxy = await spawnProxy(args);
  const deadline = Date.now() + 20_000;
  let rows = [];
  while (Date.now() < deadline && (rows = await origo.store.listProxyRecords({ limit: 1000 })).length < RECORDS) await sleep(100);
  await sleep(500);
  rows = await origo.store.listProxyRecords({ limit: 1000 });
  const distinct = new Set(rows.map((/** @type {any} */ r) => r.id)).size;
  proxy.child.kill('SIGKILL');
  await proxy.exited;
  await origo.close();
  await origin.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`4. spool: ${RECORDS} records made while Origo was down, ${spooled} in the spool at SIGKILL; after restart ${rows.length} stored, ${distinct} distinct (target ${RECORDS}, none twice)`);
}

console.log(`bench:hostile — load average before: ${load()}`);
await statusFlood();
console.log(`   load average: ${load()}`);
await junkFill();
console.log(`   load average: ${load()}`);
await rtcFlood();
console.log(`   load average: ${load()}`);
await spoolKill();
console.log(`   load average: ${load()}`);
process.exit(0);
