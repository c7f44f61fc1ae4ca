#!/usr/bin/env node
// `npm run testbed -- --rates 4x896KiB [--loss PCT] [--downloads N --mode MODE --proxies N]`:
// brings up the namespace testbed (Origo, proxies, demo origin, client), optionally runs a few
// downloads and prints them, otherwise stays up until Ctrl-C. Needs root. Torn down on exit.
import { parseArgs } from 'node:util';
import { resolve, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { DEFAULT_TCP_CC, MAX_TCP_INITCWND, MIN_TCP_INITCWND } from '../src/links.js';
import { parseRates, parseRate, formatRate } from '../src/rates.js';
import { startTestbed, checkPrerequisites, clientProxy } from '../src/testbed.js';
import { MAX_DELAY_MS } from '../src/delay.js';
import { parseClientCap, DEFAULT_CLIENT_QUEUE_MS } from '../src/bottleneck.js';
import { formatSharedLink, CROSS_LEAD_MS } from '../src/shared-link.js';

const MAX_PAUSE_MS = 600_000; // a pause longer than any idle timeout a connection meets (10 min)

const USAGE = `Usage: npm run testbed -- [options]   (needs root)

  --rates LIST       proxies and their upload rates, e.g. 14x896KiB,4x1792KiB   [4x896KiB]
  --loss PCT         random loss on every proxy↔client link, dropped at the receiver   [0]
  --delay-ms MS      one-way delay on every packet to/from the client (RTT +2·MS): netem, else
                     shaping/delayline via NFQUEUE (see testbed/README.md)   [0]
  --tcp-cc ALGO      TCP congestion control of every host: the paper's servers ran cubic   [${DEFAULT_TCP_CC}]
  --tcp-initcwnd N   the proxies' TCP initial window, packets (${MIN_TCP_INITCWND}..${MAX_TCP_INITCWND}), as a proxy container's
                     TCP_INITCWND: a cold HTTP-mode download's first round trips   [the kernel's, 10]
  --downloads N      run N downloads and exit (else stay up until Ctrl-C)
  --mode MODE        coded | uncoded | parallel-http | range-http   [coded]
  --proxies N        proxies per download   [all]
  --size KIB         object size in KiB   [1536]
  --dir DIR          process logs and Origo's DuckDB   [test-artifacts/testbed]
  --tag T            namespace tag (a stale testbed with the same tag is removed)   [tb]
  --subnet S         private /24 (first three octets)   [10.219.0]
  --distinct-urls    each download a URL of its own, as a video's segments (default: one URL, cached after the first)
  --cold             each MUTP download on new WebRTC connections, as a one-off download (default: kept ones)
  --pause-ms MS      idle time between downloads, as a player with a full buffer waits between segments   [0]
  --origin-delay-ms MS  one-way delay on every packet to/from the origin (proxy↔origin RTT +2·MS), so an
                     object the proxies have not cached (--distinct-urls) costs what a distant origin would   [0]
  --origin-rate RATE the origin's upload rate (as --rates: 4MiB, 4096KiB, bytes/s)   [unshaped]
  --client-cap RATE  the client's download cap (as --rates: 2MiB, 2048KiB, bytes/s): one bottleneck shared by every
                     flow to the client, as a home access link; with --downloads, prints the link's share and queue
  --client-queue-ms MS  that bottleneck's queue bound, ms at the cap (a bfifo)   [${DEFAULT_CLIENT_QUEUE_MS}]
  --cross-tcp        one long TCP download to the client through the cap from a host of its own, from
                     ${CROSS_LEAD_MS / 1000} s before the first download to the end of the last (needs --client-cap, --downloads)
  --json FILE        with --downloads: each download and the shared link's numbers as JSON
  -h, --help`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      rates: { type: 'string', default: '4x896KiB' }, loss: { type: 'string', default: '0' }, 'delay-ms': { type: 'string' }, 'tcp-cc': { type: 'string', default: DEFAULT_TCP_CC }, 'tcp-initcwnd': { type: 'string' },
      downloads: { type: 'string' }, mode: { type: 'string', default: 'coded' }, proxies: { type: 'string' }, size: { type: 'string', default: '1536' },
      dir: { type: 'string', default: join('test-artifacts', 'testbed') }, tag: { type: 'string', default: 'tb' }, subnet: { type: 'string', default: '10.219.0' },
      'distinct-urls': { type: 'boolean', default: false }, cold: { type: 'boolean', default: false }, 'pause-ms': { type: 'string', default: '0' }, help: { type: 'boolean', short: 'h' },
      'client-cap': { type: 'string' }, 'origin-delay-ms': { type: 'string' }, 'origin-rate': { type: 'string' }, 'client-queue-ms': { type: 'string' }, 'cross-tcp': { type: 'boolean', default: false }, json: { type: 'string' },
    },
  }));
} catch (err) {
  console.error(`testbed: ${err.message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const fail = (/** @type {string} */ msg) => {
  console.error(`testbed: ${msg}`);
  process.exit(2);
};
let rates;
let clientCap;
let originRate = null;
try {
  rates = parseRates(values.rates);
  if (values['origin-rate'] !== undefined) originRate = { text: values['origin-rate'], bps: parseRate(values['origin-rate']) };
  clientCap = parseClientCap(values['client-cap'], values['client-queue-ms']);
  checkPrerequisites();
} catch (err) {
  fail(`${err.code}: ${err.message}`);
}
const loss = Number(values.loss);
if (!(loss >= 0 && loss < 100)) fail('--loss must be a percentage in [0, 100)');
const delayMs = Number(values['delay-ms'] ?? 0);
if (!(Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= MAX_DELAY_MS)) fail(`--delay-ms must be an integer in [0, ${MAX_DELAY_MS}]`);
const originDelayMs = Number(values['origin-delay-ms'] ?? 0);
if (!(Number.isInteger(originDelayMs) && originDelayMs >= 0 && originDelayMs <= MAX_DELAY_MS)) fail(`--origin-delay-ms must be an integer in [0, ${MAX_DELAY_MS}]`);
const size = Number(values.size);
if (!(Number.isInteger(size) && size > 0 && size <= 65536)) fail('--size must be 1..65536 KiB');
const pauseMs = Number(values['pause-ms']);
if (!(Number.isInteger(pauseMs) && pauseMs >= 0 && pauseMs <= MAX_PAUSE_MS)) fail(`--pause-ms must be an integer in [0, ${MAX_PAUSE_MS}]`);
if (values['cross-tcp'] && !clientCap) fail('ERR_BAD_OPTION: --cross-tcp needs --client-cap (without a cap there is no bottleneck to share)');
if (values['cross-tcp'] && !values.downloads) fail('ERR_BAD_OPTION: --cross-tcp needs --downloads (it runs around them)');
if (values.json && !values.downloads) fail('ERR_BAD_OPTION: --json needs --downloads');

const tcpInitCwnd = values['tcp-initcwnd'] === undefined ? null : Number(values['tcp-initcwnd']);
if (tcpInitCwnd !== null && !(Number.isInteger(tcpInitCwnd) && tcpInitCwnd >= MIN_TCP_INITCWND && tcpInitCwnd <= MAX_TCP_INITCWND)) fail(`--tcp-initcwnd must be an integer in [${MIN_TCP_INITCWND}, ${MAX_TCP_INITCWND}]`);

const tb = await startTestbed({ rates, dir: resolve(values.dir), tag: values.tag, subnet: values.subnet, lossPct: loss, delayMs, tcpCongestion: values['tcp-cc'], tcpInitCwnd, clientCap, crossTcp: values['cross-tcp'], originDelayMs, originRate });
console.log(`testbed up: Origo ${tb.origoUrl} (admin password ${tb.adminPassword}), origin ${tb.originUrl}`);
console.log(`  delay: ${tb.delay ? tb.delay.describe : 'none (the bridge\'s ~0.1 ms RTT)'}; TCP congestion control ${tb.tcpCongestion}${tb.tcpInitCwnd === null ? '' : `, the proxies' initial window ${tb.tcpInitCwnd} packets`}`);
if (tb.originLink) console.log(`  origin link: ${tb.originLink.delay ? `RTT +${tb.originLink.delay.rttMs} ms (${tb.originLink.delay.describe})` : 'no delay'}; upload ${tb.originLink.rateBps === null ? 'unshaped' : formatRate(tb.originLink.rateBps)}`);
if (tb.bottleneck) {
  console.log(`  client cap: ${formatRate(tb.bottleneck.rateBps)}, htb + bfifo of ${tb.bottleneck.limitBytes} B (${tb.bottleneck.queueMs} ms) on ${tb.bottleneck.dev} in ${tb.topology.hub}` +
    `${tb.topology.cross ? `; cross TCP from ${tb.topology.cross.ip}` : ''}`);
}
for (const p of tb.proxies) console.log(`  ${p.id}  ${p.url}  ${formatRate(p.rateBps)}  (namespace ${p.ns})`);
const builds = [...new Set(tb.proxies.map((p) => p.rtcBuild?.summary ?? 'unknown (not in the proxy log)'))];
console.log(`  proxies' WebRTC build: ${builds.join(' | ')}`);
console.log(`  client namespace ${tb.topology.client.ns}: e.g. ip netns exec ${tb.topology.client.ns} node proxyclientlib/bin/mutp.js get ${tb.objectUrl(size)} --origo ${tb.origoUrl} --json`);

if (values.downloads) {
  const n = Number(values.downloads);
  const use = values.proxies ? tb.proxies.slice(0, Number(values.proxies)) : tb.proxies;
  const meter = tb.bottleneck ? await tb.startSharedLink() : null;
  const rows = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    const req = { url: tb.objectUrl(size, values['distinct-urls'] ? i : undefined), mode: values.mode, proxies: use.map(clientProxy), cold: values.cold };
    const r = meter ? await meter.measure(() => tb.download(req)) : await tb.download(req);
    const s = r.stats ?? {};
    rows.push({ download: i + 1, mode: values.mode, n: use.length, error: r.error ?? null, netBytes: s.netBytes ?? 0, durationMs: s.durationMs ?? null,
      firstPacketMs: s.firstPacketMs ?? null, serverFetchMs: s.serverFetchMs ?? null, sha256: r.sha256 ?? null });
    console.log(r.error
      ? `download ${i + 1}: ${r.error.code} ${r.error.message}`
      : `download ${i + 1}: ${values.mode} N=${use.length} ${s.netBytes} B in ${s.durationMs.toFixed(0)} ms${typeof s.firstPacketMs === 'number' ? ` (first packet at ${s.firstPacketMs.toFixed(0)}${typeof s.serverFetchMs === 'number' ? `, origin fetch ${s.serverFetchMs.toFixed(0)}` : ''})` : ''}: goodput ${formatRate(s.netBytes / (s.durationMs / 1000))}, normalized ${(s.netBytes / s.grossBytes).toFixed(2)}`);
  }
  const shared = meter ? meter.summary() : null;
  if (shared) console.log(formatSharedLink(shared));
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ rates: values.rates, delayMs, originDelayMs, originRateBps: originRate?.bps ?? null, downloads: rows, sharedLink: shared }, null, 2)}\n`);
  await tb.close();
  process.exit(0);
}
console.log('Ctrl-C tears everything down.');
await new Promise(() => {}); // stay up; the signal handler tears down and exits
