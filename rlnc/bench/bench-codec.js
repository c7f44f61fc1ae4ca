#!/usr/bin/env node
// Codec throughput, Kodo-style rates: encode = coded bytes produced per second;
// decode = g·symbolSize per second to full rank. Not a test: numbers depend on the machine
// and its load. Usage: node rlnc/bench/bench-codec.js [--json] [--seconds S]
import { createEncoder, createDecoder } from '../index.js';

const GENERATIONS = [12, 24, 32, 64];
/** Bytes per symbol: a WebRTC-sized packet, as in the paper's setup. */
const SYMBOL_SIZE = 1100;
const IMPLS = /** @type {const} */ (['simd', 'scalar', 'js']);
/** Wall time per measurement in seconds: 4 g × 2 directions × 3 impls × 1 s stays under 60 s. */
const DEFAULT_SECONDS = 0.8;
/** Check the clock every this many operations so timing costs nothing measurable. */
const CLOCK_EVERY = 16;
const MB = 1e6;

const args = process.argv.slice(2);
const json = args.includes('--json');
const secIdx = args.indexOf('--seconds');
const seconds = secIdx >= 0 ? Number(args[secIdx + 1]) : DEFAULT_SECONDS;

/** @param {number} n */
function data(n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 167 + 13) & 0xff;
  return out;
}

/** @param {any} impl @param {number} g */
async function benchEncode(impl, g) {
  const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 1, impl });
  enc.setSymbols(data(g * SYMBOL_SIZE));
  for (let i = 0; i < 50; i++) enc.writePayloadView(); // warm up
  let packets = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let now = t0;
  while (now < end) {
    for (let i = 0; i < CLOCK_EVERY; i++) enc.writePayloadView();
    packets += CLOCK_EVERY;
    now = performance.now();
  }
  enc.dispose();
  return rates(packets * SYMBOL_SIZE, t0, now, c0);
}

/** @param {any} impl @param {number} g */
async function benchDecode(impl, g) {
  const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 2, impl: 'js' });
  enc.setSymbols(data(g * SYMBOL_SIZE));
  const payloads = Array.from({ length: g + 16 }, () => enc.writePayload());
  enc.dispose();
  /** decode one generation to full rank */
  const once = async () => {
    const dec = await createDecoder({ symbols: g, symbolSize: SYMBOL_SIZE, impl });
    for (let i = 0; !dec.isComplete(); i++) dec.readPayload(payloads[i]);
    dec.dispose();
  };
  await once(); // warm up
  let done = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let now = t0;
  while (now < end) {
    await once();
    done++;
    now = performance.now();
  }
  return rates(done * g * SYMBOL_SIZE, t0, now, c0);
}

/**
 * Wall-clock rate (the headline) and CPU-time rate (this process's user+system time; less
 * sensitive to other processes on a shared machine).
 * @param {number} bytes @param {number} t0 @param {number} t1 @param {NodeJS.CpuUsage} c0
 */
function rates(bytes, t0, t1, c0) {
  const cpu = process.cpuUsage(c0);
  return { wall: bytes / MB / ((t1 - t0) / 1000), cpu: bytes / MB / ((cpu.user + cpu.system) / 1e6) };
}

const results = [];
for (const g of GENERATIONS) {
  /** @type {Record<string, any>} */
  const row = { g, symbolSize: SYMBOL_SIZE };
  for (const impl of IMPLS) {
    const enc = await benchEncode(impl, g);
    const dec = await benchDecode(impl, g);
    row[impl] = { encodeMBps: enc.wall, decodeMBps: dec.wall, encodeCpuMBps: enc.cpu, decodeCpuMBps: dec.cpu };
  }
  row.simdOverJs = {
    encode: row.simd.encodeMBps / row.js.encodeMBps,
    decode: row.simd.decodeMBps / row.js.decodeMBps,
  };
  results.push(row);
  if (!json) {
    const f = (/** @type {number} */ x) => x.toFixed(1).padStart(8);
    if (results.length === 1) {
      console.log(`rlnc codec, symbolSize ${SYMBOL_SIZE} B, ${seconds} s per cell, MB/s (1 MB = 1e6 B)`);
      console.log('wall-clock rates; --json adds CPU-time rates (less sensitive to a busy machine)');
      console.log('   g |  simd enc  simd dec | scalar enc scalar dec |   js enc   js dec | simd/js enc  dec');
    }
    console.log(`${String(g).padStart(4)} |${f(row.simd.encodeMBps)} ${f(row.simd.decodeMBps)}  |${f(row.scalar.encodeMBps)}   ${f(row.scalar.decodeMBps)}   |`
      + `${f(row.js.encodeMBps)} ${f(row.js.decodeMBps)} | ${f(row.simdOverJs.encode)} ${f(row.simdOverJs.decode)}`);
  }
}
if (json) {
  console.log(JSON.stringify({ node: process.version, symbolSize: SYMBOL_SIZE, secondsPerCell: seconds, results }, null, 2));
}
