#!/usr/bin/env node
// Codec throughput, Kodo-style rates: encode = coded bytes produced per second;
// decode = g·symbolSize per second to full rank. Not a test: numbers depend on the machine
// and its load. Usage: node rlnc/bench/bench-codec.js [--json] [--seconds S]
// On Node 20 the relaxed build is enabled at load time (src/wasm-bytes.node.js turns on V8's flag).
//
// On a shared machine one long run per cell measures the neighbours as much as the codec, so
// every implementation and direction runs in short interleaved bursts: all cells of one g see
// the same load, and the best burst approximates a quiet machine.
import { createEncoder, createDecoder } from '../index.js';
import { wasmSupported } from '../src/wasm-backend.js';

const GENERATIONS = [12, 24, 32, 64];
/** Bytes per symbol: a WebRTC-sized packet, as in the paper's setup. */
const SYMBOL_SIZE = 1100;
const ALL_IMPLS = /** @type {const} */ (['relaxed', 'simd', 'scalar', 'js']);
/** Seconds of bursts per implementation, direction and g: 4 g × 2 × 4 impls × 0.8 s ≈ 26 s. */
const DEFAULT_SECONDS = 0.8;
/** Length of one burst in ms: with load 5-8 on 2 cores a 2 ms burst often runs unpreempted. */
const BURST_MS = 2;
/** Encoded packets between clock reads, so timing costs nothing measurable. */
const CLOCK_EVERY = 16;
/** Pre-encoded packets per decode generation: g plus a margin for non-innovative ones. */
const EXTRA_PACKETS = 16;
const MB = 1e6;

const args = process.argv.slice(2);
const json = args.includes('--json');
const secIdx = args.indexOf('--seconds');
const seconds = secIdx >= 0 ? Number(args[secIdx + 1]) : DEFAULT_SECONDS;
const HAS_RELAXED = await wasmSupported('relaxed');
/** @type {ReadonlyArray<'relaxed'|'simd'|'scalar'|'js'>} */
const IMPLS = HAS_RELAXED ? ALL_IMPLS : ALL_IMPLS.filter((i) => i !== 'relaxed');

/** @param {number} n */
function data(n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 167 + 13) & 0xff;
  return out;
}

/** Rates of one cell, accumulated over its bursts. */
class Cell {
  constructor() {
    this.bytes = 0;
    this.wallMs = 0;
    this.cpuUs = 0;
    /** @type {number[]} MB/s of each burst */
    this.bursts = [];
  }

  /**
   * Runs `op` (which returns the bytes it produced) for one burst.
   * @param {() => number | Promise<number>} op
   */
  async burst(op) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let now = t0;
    let bytes = 0;
    do {
      bytes += await op();
      now = performance.now();
    } while (now - t0 < BURST_MS);
    const cpu = process.cpuUsage(c0);
    this.bytes += bytes;
    this.wallMs += now - t0;
    this.cpuUs += cpu.user + cpu.system;
    this.bursts.push(bytes / MB / ((now - t0) / 1000));
  }

  summary() {
    const sorted = [...this.bursts].sort((a, b) => a - b);
    return {
      wall: this.bytes / MB / (this.wallMs / 1000),
      cpu: this.bytes / MB / (this.cpuUs / 1e6),
      median: sorted[Math.floor(sorted.length / 2)],
      best: sorted[sorted.length - 1],
    };
  }
}

/** @param {'relaxed'|'simd'|'scalar'|'js'} impl @param {number} g */
async function setup(impl, g) {
  const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 1, impl });
  enc.setSymbols(data(g * SYMBOL_SIZE));
  const ref = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 2, impl: 'js' });
  ref.setSymbols(data(g * SYMBOL_SIZE));
  const payloads = Array.from({ length: g + EXTRA_PACKETS }, () => ref.writePayload());
  ref.dispose();
  const encode = () => {
    for (let i = 0; i < CLOCK_EVERY; i++) enc.writePayloadView();
    return CLOCK_EVERY * SYMBOL_SIZE;
  };
  /** one generation to full rank with a fresh decoder, as a receiver does it */
  const decode = async () => {
    const dec = await createDecoder({ symbols: g, symbolSize: SYMBOL_SIZE, impl });
    for (let i = 0; !dec.isComplete(); i++) dec.readPayload(payloads[i]);
    dec.dispose();
    return g * SYMBOL_SIZE;
  };
  return { enc, encode, decode, encCell: new Cell(), decCell: new Cell() };
}

const results = [];
for (const g of GENERATIONS) {
  const runs = await Promise.all(IMPLS.map((impl) => setup(impl, g)));
  for (const r of runs) { // warm up: V8 tiers WASM and JS up to the optimising compiler
    for (let i = 0; i < 20; i++) { r.encode(); await r.decode(); }
  }
  const end = performance.now() + seconds * 1000 * 2 * IMPLS.length;
  for (let round = 0; performance.now() < end; round++) {
    const order = round % 2 ? [...runs].reverse() : runs;
    for (const r of order) {
      await r.encCell.burst(r.encode);
      await r.decCell.burst(r.decode);
    }
  }
  /** @type {Record<string, any>} */
  const row = { g, symbolSize: SYMBOL_SIZE };
  IMPLS.forEach((impl, k) => {
    const e = runs[k].encCell.summary();
    const d = runs[k].decCell.summary();
    runs[k].enc.dispose();
    row[impl] = {
      encodeMBps: e.wall, encodeCpuMBps: e.cpu, encodeMedianMBps: e.median, encodeBestMBps: e.best,
      decodeMBps: d.wall, decodeCpuMBps: d.cpu, decodeMedianMBps: d.median, decodeBestMBps: d.best,
    };
  });
  // CPU-time ratio of the same interleaved run
  row.simdOverJs = {
    encode: row.simd.encodeCpuMBps / row.js.encodeCpuMBps,
    decode: row.simd.decodeCpuMBps / row.js.decodeCpuMBps,
  };
  results.push(row);
  if (!json) {
    const f = (/** @type {number} */ x) => x.toFixed(0).padStart(5);
    if (results.length === 1) {
      console.log(`rlnc codec, symbolSize ${SYMBOL_SIZE} B, ${BURST_MS} ms bursts interleaved, MB/s (1 MB = 1e6 B)`);
      console.log('each cell: wall / CPU time / median burst / best burst; simd/js on CPU time');
      if (!HAS_RELAXED) console.log('(no relaxed: this engine rejects relaxed SIMD; Node 20 needs --experimental-wasm-relaxed-simd)');
    }
    console.log(`g=${g}`);
    for (const impl of IMPLS) {
      const x = row[impl];
      console.log(`  ${impl.padEnd(7)} enc ${f(x.encodeMBps)} /${f(x.encodeCpuMBps)} /${f(x.encodeMedianMBps)} /${f(x.encodeBestMBps)}`
        + `   dec ${f(x.decodeMBps)} /${f(x.decodeCpuMBps)} /${f(x.decodeMedianMBps)} /${f(x.decodeBestMBps)}`);
    }
    console.log(`  simd/js enc ${row.simdOverJs.encode.toFixed(1)}x dec ${row.simdOverJs.decode.toFixed(1)}x`);
  }
}
if (json) {
  console.log(JSON.stringify({
    node: process.version, symbolSize: SYMBOL_SIZE, secondsPerCell: seconds, burstMs: BURST_MS, impls: IMPLS, results,
  }, null, 2));
}
