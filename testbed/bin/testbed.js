#!/usr/bin/env node
// `npm run testbed -- --rates 4x896KiB [--loss PCT] [--downloads N --mode MODE --proxies N]`:
// brings up the namespace testbed (Origo, proxies, demo origin, client), optionally runs a few
// downloads and prints them, otherwise stays up until Ctrl-C. Needs root. Torn down on exit.
import { parseArgs } from 'node:util';
import { resolve, join } from 'node:path';
import { DEFAULT_TCP_CC } from '../src/links.js';
import { parseRates, formatRate } from '../src/rates.js';
import { startTestbed, checkPrerequisites, clientProxy } from '../src/testbed.js';
import { MAX_DELAY_MS } from '../src/delay.js';

const MAX_PAUSE_MS = 600_000; // a pause longer than any idle timeout a connection meets (10 min)

const USAGE = `Usage: npm run testbed -- [options]   (needs root)

  --rates LIST       proxies and their upload rates, e.g. 14x896KiB,4x1792KiB   [4x896KiB]
  --loss PCT         random loss on every proxy↔client link, dropped at the receiver   [0]
  --delay-ms MS      one-way delay on every packet to/from the client (RTT +2·MS): netem, else
                     shaping/delayline via NFQUEUE (see testbed/README.md)   [0]
  --tcp-cc ALGO      TCP congestion control of every host: the paper's servers ran cubic   [${DEFAULT_TCP_CC}]
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
  -h, --help`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      rates: { type: 'string', default: '4x896KiB' }, loss: { type: 'string', default: '0' }, 'delay-ms': { type: 'string' }, 'tcp-cc': { type: 'string', default: DEFAULT_TCP_CC },
      downloads: { type: 'string' }, mode: { type: 'string', default: 'coded' }, proxies: { type: 'string' }, size: { type: 'string', default: '1536' },
      dir: { type: 'string', default: join('test-artifacts', 'testbed') }, tag: { type: 'string', default: 'tb' }, subnet: { type: 'string', default: '10.219.0' },
      'distinct-urls': { type: 'boolean', default: false }, cold: { type: 'boolean', default: false }, 'pause-ms': { type: 'string', default: '0' }, help: { type: 'boolean', short: 'h' },
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
try {
  rates = parseRates(values.rates);
  checkPrerequisites();
} catch (err) {
  fail(`${err.code}: ${err.message}`);
}
const loss = Number(values.loss);
if (!(loss >= 0 && loss < 100)) fail('--loss must be a percentage in [0, 100)');
const delayMs = Number(values['delay-ms'] ?? 0);
if (!(Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= MAX_DELAY_MS)) fail(`--delay-ms must be an integer in [0, ${MAX_DELAY_MS}]`);
const size = Number(values.size);
if (!(Number.isInteger(size) && size > 0 && size <= 65536)) fail('--size must be 1..65536 KiB');
const pauseMs = Number(values['pause-ms']);
if (!(Number.isInteger(pauseMs) && pauseMs >= 0 && pauseMs <= MAX_PAUSE_MS)) fail(`--pause-ms must be an integer in [0, ${MAX_PAUSE_MS}]`);

const tb = await startTestbed({ rates, dir: resolve(values.dir), tag: values.tag, subnet: values.subnet, lossPct: loss, delayMs, tcpCongestion: values['tcp-cc'] });
console.log(`testbed up: Origo ${tb.origoUrl} (admin password ${tb.adminPassword}), origin ${tb.originUrl}`);
console.log(`  delay: ${tb.delay ? tb.delay.describe : 'none (the bridge\'s ~0.1 ms RTT)'}; TCP congestion control ${tb.tcpCongestion}`);
for (const p of tb.proxies) console.log(`  ${p.id}  ${p.url}  ${formatRate(p.rateBps)}  (namespace ${p.ns})`);
const builds = [...new Set(tb.proxies.map((p) => p.rtcBuild?.summary ?? 'unknown (not in the proxy log)'))];
console.log(`  proxies' WebRTC build: ${builds.join(' | ')}`);
console.log(`  client namespace ${tb.topology.client.ns}: e.g. ip netns exec ${tb.topology.client.ns} node proxyclientlib/bin/mutp.js get ${tb.objectUrl(size)} --origo ${tb.origoUrl} --json`);

if (values.downloads) {
  const n = Number(values.downloads);
  const use = values.proxies ? tb.proxies.slice(0, Number(values.proxies)) : tb.proxies;
  for (let i = 0; i < n; i++) {
    if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    const r = await tb.download({ url: tb.objectUrl(size, values['distinct-urls'] ? i : undefined), mode: values.mode, proxies: use.map(clientProxy), cold: values.cold });
    const s = r.stats ?? {};
    console.log(r.error
      ? `download ${i + 1}: ${r.error.code} ${r.error.message}`
      : `download ${i + 1}: ${values.mode} N=${use.length} ${s.netBytes} B in ${s.durationMs.toFixed(0)} ms${typeof s.firstPacketMs === 'number' ? ` (first packet at ${s.firstPacketMs.toFixed(0)})` : ''}: goodput ${formatRate(s.netBytes / (s.durationMs / 1000))}, normalized ${(s.netBytes / s.grossBytes).toFixed(2)}`);
  }
  await tb.close();
  process.exit(0);
}
console.log('Ctrl-C tears everything down.');
await new Promise(() => {}); // stay up; the signal handler tears down and exits
