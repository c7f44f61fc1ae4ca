#!/usr/bin/env node
// Loopback goodput of Uncoded and Coded MUTP over real WebRTC: N local proxies (the real
// mountRtc on a bare express app, objects served from memory), one object, several runs.
// Usage: node proxyclientlib/bench/bench-mutp.js [--n 4] [--mb 5] [--runs 5]
// Prints MB/s (1 MB = 10^6 bytes) per mode: median and range. Numbers on a shared 2-core
// machine are noisy; compare runs made back to back.
import { parseArgs } from 'node:util';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes } from '@mutp/testkit/mutp-harness';

const { values } = parseArgs({ options: { n: { type: 'string', default: '4' }, mb: { type: 'string', default: '5' }, runs: { type: 'string', default: '5' } } });
const n = Number(values.n);
const bytes = Math.round(Number(values.mb) * 1e6);
const runs = Number(values.runs);
const url = 'http://origin.bench/object';
const body = testBytes(bytes, 7);
const want = sha256(body);
const proxies = await Promise.all(Array.from({ length: n }, (_, i) => startTestProxy({ id: `bench-${i}`, objects: memoryObjects(new Map([[url, body]])) })));

try {
  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    const rates = [];
    const norm = [];
    for (let r = 0; r < runs + 1; r++) {
      const { data, stats } = await downloadMutp({ url, mode, proxies: proxies.map((p) => p.ref), RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
      if (sha256(data) !== want) throw new Error(`${mode}: corrupt download`);
      if (r === 0) continue; // warm-up: codec load, JIT
      rates.push(stats.goodputBps / 1e6);
      norm.push(stats.normalizedGoodput);
    }
    rates.sort((a, b) => a - b);
    const med = rates[rates.length >> 1];
    console.log(`${mode.padEnd(8)} N=${n} ${values.mb} MB: goodput median ${med.toFixed(1)} MB/s ` +
      `(min ${rates[0].toFixed(1)}, max ${rates.at(-1).toFixed(1)}; ${runs} runs), normalized goodput median ${norm.sort()[norm.length >> 1].toFixed(3)}`);
  }
} finally {
  proxies.forEach((p) => p.kill());
}
