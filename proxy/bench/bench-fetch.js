#!/usr/bin/env node
// Measures GET /fetch on loopback: a cold fetch (origin → cache → client) and cache hits,
// whole object and 1 MiB ranges. Prints MB/s; numbers on a shared 2-core machine are noisy.
import http from 'node:http';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { startProxy } from '../index.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '5000000' }, rounds: { type: 'string', default: '20' }, json: { type: 'boolean' } } });
const SIZE = Number(values.size);
const ROUNDS = Number(values.rounds);
const RANGE_BYTES = 1024 * 1024; // a Range-split HTTP share of a chunk

const data = Buffer.alloc(SIZE, 7);
const origin = http.createServer((_req, res) => res.end(data));
origin.listen(0, '127.0.0.1');
await once(origin, 'listening');
const originPort = /** @type {import('node:net').AddressInfo} */ (origin.address()).port;
const proxy = await startProxy({ allowPrivate: true, allowedHosts: [`127.0.0.1:${originPort}`], logger: { info() {}, warn() {}, error() {} } });
const target = `${proxy.url}/fetch?url=${encodeURIComponent(`http://127.0.0.1:${originPort}/obj`)}`;

/** @param {Record<string, string>} headers */
async function timed(headers) {
  const t0 = performance.now();
  const res = await fetch(target, { headers });
  const n = (await res.arrayBuffer()).byteLength;
  return { ms: performance.now() - t0, bytes: n };
}

const cold = await timed({});
const hits = [];
for (let i = 0; i < ROUNDS; i++) hits.push(await timed({}));
const ranges = [];
for (let i = 0; i < ROUNDS; i++) {
  const start = (i * RANGE_BYTES) % Math.max(1, SIZE - RANGE_BYTES);
  ranges.push(await timed({ range: `bytes=${start}-${start + RANGE_BYTES - 1}` }));
}
const mbps = (/** @type {{ms: number, bytes: number}[]} */ xs) => {
  const bytes = xs.reduce((a, x) => a + x.bytes, 0);
  const ms = xs.reduce((a, x) => a + x.ms, 0);
  return bytes / 1e6 / (ms / 1000);
};
const result = {
  objectBytes: SIZE, rounds: ROUNDS,
  coldMs: Number(cold.ms.toFixed(1)), coldMBps: Number(mbps([cold]).toFixed(1)),
  hitMBps: Number(mbps(hits).toFixed(1)), rangeMBps: Number(mbps(ranges).toFixed(1)),
};
if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
else {
  process.stdout.write(`object ${SIZE} B, ${ROUNDS} rounds (loopback, noisy shared machine)\n`);
  process.stdout.write(`cold fetch (origin+serve): ${result.coldMs} ms, ${result.coldMBps} MB/s\n`);
  process.stdout.write(`cache hit, whole object:   ${result.hitMBps} MB/s\n`);
  process.stdout.write(`cache hit, 1 MiB ranges:   ${result.rangeMBps} MB/s\n`);
}
await proxy.close();
origin.close();
