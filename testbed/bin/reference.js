#!/usr/bin/env node
// `npm run testbed:reference -- [--boxes 4x896KiB:coded,range-http;...] [--downloads 31] [--delay-ms 25] [--segments popular|new|repeat] [--starts kept|mixed|new] [--settle-ms 300]`
// The live-speed reference: each box's testbed alone, one download at a time, the median goodput
// of the warm downloads (the first opens the connections) against what the links allow, the
// median time breakdown, the machine's load, and the simulator's prediction for the same box.
// Segments (--segments): 'popular' (default) asks for one URL again and again, so the proxies serve it
// from their object cache as they would a segment many viewers watch, while the client asks for
// each download's digest lists, as a viewer meets each segment once; 'new' gives each download a
// URL of its own (the proxies fetch it from the origin first); 'repeat' is one URL with the
// client's per-URL digest lists kept (Range-split HTTP then skips its digest round trip).
// Connections (--starts, MUTP modes): 'kept' (default) keeps them from download to download, as a
// playing client does; 'new' closes them all before each download and opens them again at once
// (the campaign's case: a proxy idle past the client's pool timeout, then the preconnect);
// 'mixed' does that to the first half of the proxies only (⌊N/2⌋), beside kept ones. The
// simulator is given the same starts (a new association's SCTP window, the proxies' path cache).
// Between downloads the client's log record is flushed to Origo and the machine left --settle-ms
// quiet (a player's pause between segments): Origo ingesting a record (~130 ms of its CPU for a
// 1.5 MB coded download's packet log) and the proxies posting theirs then do not share the 2 cores
// with the next download, as on a deployment where Origo has a machine of its own.
// body ÷ wire: the object's bytes over what the proxies sent the client for it until it had the
// object, every header included, as the shapers count it (MUTP pays SCTP, DTLS and its own coding
// header on ≤ 1200-byte datagrams; TCP fills 1500-byte packets), so a mode's best transfer time is
// size ÷ (that × links). late: what left the shapers after that, as a share of it (packets still
// queued or in flight when the download ended: they cost the links, not this download's time).
// Prints a Markdown report (stdout) and one JSON line per box and mode (--json FILE).
import { parseArgs } from 'node:util';
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { codedError } from '@mutp/common/errors';
import { median, TIME_BREAKDOWN_PARTS } from '@mutp/protocol';
import { simulateConfig, CAMPAIGN_OVERHEAD_BYTES, TESTBED_QUEUE_MS, SCTP_INITIAL_CWND_PACKETS } from '@mutp/sim';
import { parseRates } from '../src/rates.js';
import { MUTP_MODES } from '../src/campaign-plan.js';
import { startTestbed, checkPrerequisites, clientProxy, SETTLE_MS } from '../src/testbed.js';
import { joinProxyRecordsFromStore } from '../src/proxy-join.js';

/** The issue's target boxes and their comparison modes. */
const DEFAULT_BOXES = '4x896KiB:coded,range-http;1x1792KiB,3x896KiB:coded,range-http;1x1792KiB:coded,parallel-http;6x896KiB:coded,range-http';
/** Simulated downloads per box and mode: a stable median. */
const SIM_SEEDS = 10;

const { values } = parseArgs({
  options: {
    boxes: { type: 'string', default: DEFAULT_BOXES },
    downloads: { type: 'string', default: '31' },
    size: { type: 'string', default: '1536' },
    'delay-ms': { type: 'string', default: '25' },
    dir: { type: 'string', default: join('test-artifacts', 'reference') },
    tag: { type: 'string', default: 'ref' },
    subnet: { type: 'string', default: '10.219.9' },
    json: { type: 'string' },
    segments: { type: 'string', default: 'popular' },
    starts: { type: 'string', default: 'kept' },
    'settle-ms': { type: 'string', default: String(SETTLE_MS) },
  },
});
checkPrerequisites();
const downloads = Number(values.downloads);
const sizeKiB = Number(values.size);
const delayMs = Number(values['delay-ms']);
const SEGMENT_KINDS = ['popular', 'new', 'repeat'];
if (!SEGMENT_KINDS.includes(values.segments)) throw codedError('ERR_BAD_OPTION', `--segments must be one of ${SEGMENT_KINDS.join(', ')}`);
const STARTS = ['kept', 'mixed', 'new'];
if (!STARTS.includes(values.starts)) throw codedError('ERR_BAD_OPTION', `--starts must be one of ${STARTS.join(', ')}`);
/** @param {number} n proxies @returns {number} how many of a download's connections are new (the first ones) */
const newConnections = (n) => (values.starts === 'new' ? n : values.starts === 'mixed' ? Math.floor(n / 2) : 0);
const settleMs = Number(values['settle-ms']);
if (!(Number.isInteger(settleMs) && settleMs >= 0)) throw codedError('ERR_BAD_OPTION', '--settle-ms must be an integer ≥ 0');
if (!(Number.isInteger(downloads) && downloads >= 2)) throw codedError('ERR_BAD_OPTION', '--downloads must be ≥ 2 (the first is cold)');
const boxes = values.boxes.split(';').map((b) => {
  const [rates, modes] = b.split(':');
  return { rates, modes: modes.split(',') };
});

const kib = (/** @type {number} */ bps) => Math.round(bps / 1024);
/** Distinct URLs across the whole run, so no mode meets a URL another mode already fetched. */
let segments = 0;
const rows = [];
console.log('| box | mode | warm median (KiB/s) | RTT ceiling | share | sim (KiB/s) | sim ÷ testbed | dup | body ÷ wire | late | ' +
  TIME_BREAKDOWN_PARTS.map((p) => p.replace(/Ms$/, '')).join(' | ') + ' | load |');
console.log(`|${' --- |'.repeat(12 + TIME_BREAKDOWN_PARTS.length)}`);
for (const box of boxes) {
  const rates = parseRates(box.rates);
  const sumBps = rates.reduce((a, r) => a + r.bps, 0);
  const bytes = sizeKiB * 1024;
  const ceilingBps = bytes / (bytes / sumBps + (2 * delayMs) / 1000);
  const dir = resolve(values.dir, box.rates.replace(/,/g, '+'));
  const tb = await startTestbed({ rates, dir, tag: values.tag, subnet: values.subnet, delayMs, freshDigestLists: values.segments === 'popular' });
  const maxBurst = tb.proxies[0].rtcBuild?.maxBurst ?? 10;
  const rtcBuild = tb.proxies[0].rtcBuild?.summary ?? null;
  /** a new association's window, as the proxies' build set it (null: libdatachannel's) */
  const startCwnd = tb.proxies[0].rtcBuild?.initialCwnd ?? SCTP_INITIAL_CWND_PACKETS;
  /** @type {{ mode: string, warm: any[], load: number[] }[]} */
  const runs = [];
  try {
    for (const mode of box.modes) {
      const load0 = loadavg()[0];
      const warm = [];
      for (let i = 0; i < downloads; i++) {
        const segment = values.segments === 'new' ? segments++ : undefined;
        const list = tb.proxies.map(clientProxy);
        if ((/** @type {readonly string[]} */ (MUTP_MODES)).includes(mode) && newConnections(list.length) > 0) {
          await tb.closeConnections(list.slice(0, newConnections(list.length)));
          await tb.preconnect(list);
        }
        const sent0 = await tb.sentToClient();
        const r = await tb.download({ url: tb.objectUrl(sizeKiB, segment), mode, proxies: list });
        const sentAtDone = await tb.sentToClient();
        process.stderr.write(`${box.rates} ${mode} ${i + 1}/${downloads}${r.error ? ` ${r.error.code}` : ''}\r`);
        await tb.flushLogs();
        await new Promise((res) => setTimeout(res, settleMs));
        // what left after the client had the object (the shapers count a packet when it leaves
        // their queue): packets that cost the links but not this download's time
        const wireBytes = sentAtDone.bytes - sent0.bytes;
        const lateWireBytes = (await tb.sentToClient()).bytes - sentAtDone.bytes;
        if (i > 0 && !r.error && r.stats) warm.push({ ...r.stats, wireBytes, lateWireBytes });
      }
      runs.push({ mode, warm, load: [load0, loadavg()[0]] });
    }
  } finally {
    await tb.close();
  }
  // the proxies' own in-flight holds, from their records in this box's Origo (closed by now)
  const joinRows = runs.flatMap((run) => run.warm.map((s) => ({ recordId: s.id ?? null, mode: run.mode, ok: true, timeBreakdown: s.timeBreakdown ?? null })));
  await joinProxyRecordsFromStore(join(dir, 'origo.duckdb'), joinRows, 'reference');
  for (const { mode, warm, load } of runs) {
    const breakdowns = joinRows.filter((r) => r.mode === mode).map((r) => /** @type {any} */ (r.timeBreakdown));
    const goodput = median(warm.map((s) => s.netBytes / (s.durationMs / 1000)));
    const parts = Object.fromEntries(TIME_BREAKDOWN_PARTS.map((p) => [p, median(breakdowns.map((b) => b?.[p]).filter((v) => typeof v === 'number'))]));
    const sim = await simulateConfig({
      mode: /** @type {any} */ (mode), rates: rates.map((r) => r.bps), delayMs, loss: 0, startDelayMs: 0, downCapBps: Infinity, size: bytes, params: {},
      seeds: SIM_SEEDS, overheadBytes: CAMPAIGN_OVERHEAD_BYTES, maxBurst, kept: true, queueMs: TESTBED_QUEUE_MS,
      startCwnd: rates.map((_, i) => (i < newConnections(rates.length) ? startCwnd : Infinity)),
    });
    const row = {
      box: box.rates, mode, downloads: warm.length, goodputBps: goodput, ceilingBps, share: goodput / ceilingBps, simGoodputBps: sim.goodputBps,
      duplicates: median(warm.map((s) => s.duplicates ?? 0)), bodyPerWireByte: median(warm.map((s) => s.netBytes / s.wireBytes)),
      lateWireShare: median(warm.map((s) => s.lateWireBytes / s.wireBytes)), timeBreakdown: parts, load, rtcBuild,
      segments: values.segments, starts: values.starts, settleMs,
    };
    rows.push(row);
    if (values.json) appendFileSync(values.json, `${JSON.stringify(row)}\n`);
    const fmt = (/** @type {number | null} */ v) => (v === null || Number.isNaN(v) ? '' : v.toFixed(0));
    console.log(`| ${box.rates} | ${mode} | ${kib(goodput)} | ${kib(ceilingBps)} | ${row.share.toFixed(2)} | ${kib(sim.goodputBps)} | ${(sim.goodputBps / goodput).toFixed(2)} | ${row.duplicates} | ${row.bodyPerWireByte.toFixed(3)} | ${row.lateWireShare.toFixed(3)} | ` +
      `${TIME_BREAKDOWN_PARTS.map((p) => fmt(parts[p])).join(' | ')} | ${load[0].toFixed(1)} → ${load[1].toFixed(1)} |`);
  }
}
