#!/usr/bin/env node
// A single-file stream read range after range (HLS EXT-X-BYTERANGE, DASH mediaRange) through N
// local proxies by ProxyClientLib, with the origin behind a link of its own: what each range
// takes, how long Range-split's ranges wait for their digest lists, and how many bytes the proxies
// fetch from the origin for the stream's. Each origin request waits the RTT and its bytes at the
// rate (its own link: a proxy's requests rarely overlap). A bench: it prints numbers; a shared
// 2-core machine moves them, so compare runs made back to back.
import http from 'node:http';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { codedError } from '@mutp/common/errors';
import { createClient } from '@mutp/proxyclientlib';
import { benchCli } from '@mutp/testkit/bench-cli';
import { startProxy } from '../index.js';

const USAGE = `usage: node proxy/bench/bench-stream.js [--mode range-http] [--proxies 4] [--ranges 15] [--range-kb 512]
    [--passes 2] [--origin-rtt-ms 20] [--origin-mibps 12] [--json]
  mode: range-http | parallel-http | coded | uncoded; --origin-mibps 0: no rate limit`;
const MODES = ['range-http', 'parallel-http', 'coded', 'uncoded'];
const SIZE_SPREAD = 0.2; // segments of a stream differ in size: ±10% around --range-kb
const PAUSE_MS = 100; // between ranges, as a player's buffer fills: read-aheads run meanwhile

const { values: opt, usageError } = benchCli({ name: 'bench:stream', usage: USAGE, options: {
  mode: { type: 'string', default: 'range-http' }, proxies: { type: 'string', default: '4' }, ranges: { type: 'string', default: '15' },
  'range-kb': { type: 'string', default: '512' }, passes: { type: 'string', default: '2' }, 'origin-rtt-ms': { type: 'string', default: '20' },
  'origin-mibps': { type: 'string', default: '12' }, json: { type: 'boolean', default: false },
} });
/** @param {string} name @param {number} min @param {number} max */
const num = (name, min, max) => {
  const v = Number(opt[name]);
  if (!Number.isFinite(v) || v < min || v > max) usageError(`--${name} must be a number ${min}..${max}`);
  return v;
};
if (!MODES.includes(String(opt.mode))) usageError(`--mode must be one of ${MODES.join(', ')}`);
const mode = /** @type {'range-http' | 'parallel-http' | 'coded' | 'uncoded'} */ (opt.mode);
const n = Math.round(num('proxies', 1, 16));
const count = Math.round(num('ranges', 2, 1000));
const passes = Math.round(num('passes', 1, 10));
const rangeBytes = Math.round(num('range-kb', 1, 64 * 1024) * 1024);
const rttMs = num('origin-rtt-ms', 0, 10_000);
const bytesPerMs = num('origin-mibps', 0, 100_000) * 1048.576; // 0: unlimited

// the stream: ranges of varying size, back to back in one file
const ranges = [];
for (let i = 0, at = 0; i < count; i++) {
  const length = Math.round(rangeBytes * (1 - SIZE_SPREAD / 2 + SIZE_SPREAD * (((i * 7919) % 100) / 100)));
  ranges.push({ start: at, end: at + length - 1 });
  at += length;
}
const file = new Uint8Array(ranges[count - 1].end + 1).map((_, i) => (i * 31 + (i >> 9)) & 0xff);
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

const originCount = { requests: 0, bytes: 0 };
const origin = http.createServer((req, res) => {
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  const start = m ? Number(m[1]) : 0;
  const end = m ? Math.min(Number(m[2]), file.length - 1) : file.length - 1;
  if (start > end) return void res.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
  originCount.requests += 1;
  originCount.bytes += end - start + 1;
  const head = m ? { 'content-range': `bytes ${start}-${end}/${file.length}` } : {};
  const wait = rttMs + (bytesPerMs > 0 ? (end - start + 1) / bytesPerMs : 0);
  setTimeout(() => res.writeHead(m ? 206 : 200, { ...head, 'content-length': String(end - start + 1), 'content-type': 'video/mp4' }).end(file.subarray(start, end + 1)), wait);
});
origin.listen(0, '127.0.0.1');
await once(origin, 'listening');
const port = /** @type {import('node:net').AddressInfo} */ (origin.address()).port;
const url = `http://127.0.0.1:${port}/stream.mp4`;
const silent = { info() {}, warn() {}, error() {} };
const proxies = await Promise.all(Array.from({ length: n }, (_, i) => startProxy({ id: `bench-${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${port}`], logger: silent })));
const client = createClient({ origo: null, logger: { warn() {} } });

/** @type {{pass: number, index: number, ms: number, answerMs: number | null}[]} */
const rows = [];
try {
  for (let pass = 0; pass < passes; pass++) {
    for (const [index, r] of ranges.entries()) {
      const t0 = performance.now();
      const got = await client.download(url, { mode, proxies: proxies.map((p) => ({ id: p.id, url: p.url })), range: r });
      const ms = performance.now() - t0;
      if (sha(got.data) !== sha(file.subarray(r.start, r.end + 1))) throw codedError('ERR_INTEGRITY', `range ${index} came back wrong`);
      rows.push({ pass, index, ms, answerMs: got.stats.requestSteps?.answerMs ?? null });
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    }
  }
} finally {
  client.close();
  await Promise.all(proxies.map((p) => p.close()));
  origin.close();
}

const sorted = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b);
const stat = (/** @type {number[]} */ xs) => {
  const s = sorted(xs);
  return { median: s[s.length >> 1], mean: s.reduce((a, b) => a + b, 0) / s.length, p90: s[Math.min(s.length - 1, Math.floor(s.length * 0.9))], max: s[s.length - 1] };
};
const later = rows.filter((r) => r.pass > 0 || r.index >= 2); // a stream's first two ranges find nothing held or kept
const result = {
  mode, proxies: n, ranges: count, passes, streamBytes: file.length, originRttMs: rttMs, originMiBps: bytesPerMs / 1048.576,
  rangeMs: stat(later.map((r) => r.ms)),
  answerMs: mode === 'range-http' || mode === 'parallel-http' ? stat(later.map((r) => r.answerMs ?? 0)) : null,
  origin: { requests: originCount.requests, bytes: originCount.bytes, perStreamByte: originCount.bytes / file.length },
};
const f = (/** @type {number} */ x) => x.toFixed(1);
if (opt.json) console.log(JSON.stringify(result));
else {
  console.log(`${mode}, ${n} proxies, ${count} ranges of ~${rangeBytes >> 10} KiB read in turn, ${passes} pass(es); origin ${rttMs} ms away, ${bytesPerMs ? `${result.originMiBps} MiB/s` : 'no rate limit'} per request`);
  const line = (/** @type {string} */ name, /** @type {ReturnType<typeof stat>} */ s) => console.log(`${name}: median ${f(s.median)}, mean ${f(s.mean)}, p90 ${f(s.p90)}, max ${f(s.max)} ms`);
  line('per range, after the first two', result.rangeMs);
  if (result.answerMs) line(`its first proxy answer (${mode === 'range-http' ? 'a digest list' : 'a response head'})`, result.answerMs);
  console.log(`origin: ${originCount.requests} requests, ${(originCount.bytes / 1e6).toFixed(1)} MB for a ${(file.length / 1e6).toFixed(1)} MB stream (${result.origin.perStreamByte.toFixed(1)} per stream byte, ${n} proxies)`);
}
