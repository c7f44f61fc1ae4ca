#!/usr/bin/env node
// Codec throughput, Kodo-style rates: encode = coded bytes produced per second;
// decode = g·symbolSize per second to full rank. Not a test: numbers depend on the machine
// and its load. Usage: node rlnc/bench/bench-codec.js [--json] [--seconds S]
// Node 20 runs the 'relaxed' build only with: node --experimental-wasm-relaxed-simd rlnc/bench/bench-codec.js
import { createEncoder, createDecoder } from '../index.js';
import { wasmSupported } from '../src/wasm-backend.js';

const GENERATIONS = [12, 24, 32, 64];
/** Bytes per symbol: a WebRTC-sized packet, as in the paper's setup. */
const SYMBOL_SIZE = 1100;
const ALL_IMPLS = /** @type {const} */ (['relaxed', 'simd', 'scalar', 'js']);
const HAS_RELAXED = await wasmSupported('relaxed');
/** @type {ReadonlyArray<'relaxed'|'simd'|'scalar'|'js'>} */
const IMPLS = HAS_RELAXED ? ALL_IMPLS : ALL_IMPLS.filter((i) => i !== 'relaxed');
/** Wall time per measurement in seconds: 4 g × 2 directions × 3 impls × 1 s stays under 60 s. */
const DEFAULT_SECONDS = 0.8;
/** Check the clock every this many operations so timing costs nothing measurable. */
const CLOCK_EVERY = 16;
/** Length of one burst in ms. The best burst estimates the rate on a quiet machine: with load
 * 5-8 on 2 cores, a 2 ms burst often runs without being preempted. */
const BURST_MS = 2;
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
  let best = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let now = t0;
  while (now < end) {
    const b0 = now;
    let n = 0;
    while (now - b0 < BURST_MS) {
      for (let i = 0; i < CLOCK_EVERY; i++) enc.writePayloadView();
      n += CLOCK_EVERY;
      now = performance.now();
    }
    packets += n;
    best = Math.max(best, (n * SYMBOL_SIZE) / MB / ((now - b0) / 1000));
  }
  enc.dispose();
  return { ...rates(packets * SYMBOL_SIZE, t0, now, c0), best };
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
  let best = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let now = t0;
  while (now < end) {
    const b0 = now;
    let n = 0;
    while (now - b0 < BURST_MS) {
      await once();
      n++;
      now = performance.now();
    }
    done += n;
    best = Math.max(best, (n * g * SYMBOL_SIZE) / MB / ((now - b0) / 1000));
  }
  return { ...rates(done * g * SYMBOL_SIZE, t0, now, c0), best };
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
    row[impl] = {
      encodeMBps: enc.wall, decodeMBps: dec.wall,
      encodeCpuMBps: enc.cpu, decodeCpuMBps: dec.cpu,
      encodeBestMBps: enc.best, decodeBestMBps: dec.best,
    };
  }
  // same-run ratio on CPU time (wall time mixes in other processes' load)
  row.simdOverJs = {
    encode: row.simd.encodeCpuMBps / row.js.encodeCpuMBps,
    decode: row.simd.decodeCpuMBps / row.js.decodeCpuMBps,
  };
  results.push(row);
  if (!json) {
    const f = (/** @type {number} */ x) => x.toFixed(0).padStart(5);
    if (results.length === 1) {
      console.log(`rlnc codec, symbolSize ${SYMBOL_SIZE} B, ${seconds} s per cell, MB/s (1 MB = 1e6 B)`);
      console.log(`each cell: wall / CPU time / best ${BURST_MS} ms burst; simd/js on CPU time`);
      if (!HAS_RELAXED) console.log('(relaxed: this engine rejects relaxed SIMD; Node 20 needs --experimental-wasm-relaxed-simd)');
    }
    const cells = IMPLS.map((i) => `${i} enc ${f(row[i].encodeMBps)}/${f(row[i].encodeCpuMBps)}/${f(row[i].encodeBestMBps)}`
      + `  dec ${f(row[i].decodeMBps)}/${f(row[i].decodeCpuMBps)}/${f(row[i].decodeBestMBps)}`);
    console.log(`g=${g}`);
    for (const c of cells) console.log(`  ${c}`);
    console.log(`  simd/js enc ${row.simdOverJs.encode.toFixed(1)}x dec ${row.simdOverJs.decode.toFixed(1)}x`);
  }
}
if (json) {
  console.log(JSON.stringify({ node: process.version, symbolSize: SYMBOL_SIZE, secondsPerCell: seconds, burstMs: BURST_MS, impls: IMPLS, results }, null, 2));
}
