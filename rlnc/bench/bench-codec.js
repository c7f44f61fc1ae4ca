#!/usr/bin/env node
// Codec throughput, Kodo-style rates: encode = coded bytes produced per second;
// decode = g·symbolSize per second to full rank. Not a test: numbers depend on the machine
// and its load. Usage: node rlnc/bench/bench-codec.js [--json] [--seconds S] [--ratio-only]
// On Node 20 the relaxed build is enabled at load time (src/wasm-bytes.node.js turns on V8's flag).
//
// Part 1, kernel vs API at the protocol's defaults: the bare kernels and each API call on the
// same work, and API/kernel. Part 2 (skipped by --ratio-only): every implementation at several g.
// Everything runs in interleaved 2 ms bursts (burst.js).
import { createEncoder, createDecoder } from '../index.js';
import { wasmSupported } from '../src/wasm-backend.js';
import { Cell, interleave, BURST_MS } from './burst.js';
import { kernelVsApi, sampleData } from './kernel-vs-api.js';

const GENERATIONS = [12, 24, 32, 64];
/** Bytes per symbol: a WebRTC-sized packet, as in the paper's setup (protocol DEFAULTS.payloadSize). */
const SYMBOL_SIZE = 1100;
/** g of the kernel-vs-API part: protocol DEFAULTS.generationSize. */
const RATIO_G = 24;
const ALL_IMPLS = /** @type {const} */ (['relaxed', 'simd', 'scalar', 'js']);
/** Seconds of bursts per implementation, direction and g: 4 g × 2 × 4 impls × 0.8 s ≈ 26 s. */
const DEFAULT_SECONDS = 0.8;
/** Encoded packets between clock reads, so timing costs nothing measurable. */
const CLOCK_EVERY = 16;
/** Pre-encoded packets per decode generation: g plus a margin for non-innovative ones. */
const EXTRA_PACKETS = 16;
/** Untimed ops per cell before measuring: V8 tiers WASM and JS up to the optimising compiler. */
const WARMUP_OPS = 20;

const args = process.argv.slice(2);
const json = args.includes('--json');
const ratioOnly = args.includes('--ratio-only');
const secIdx = args.indexOf('--seconds');
const seconds = secIdx >= 0 ? Number(args[secIdx + 1]) : DEFAULT_SECONDS;
const HAS_RELAXED = await wasmSupported('relaxed');
/** @type {ReadonlyArray<'relaxed'|'simd'|'scalar'|'js'>} */
const IMPLS = HAS_RELAXED ? ALL_IMPLS : ALL_IMPLS.filter((i) => i !== 'relaxed');
const f = (/** @type {number} */ x) => x.toFixed(0).padStart(5);
const pct = (/** @type {number} */ x) => `${(100 * x).toFixed(0).padStart(3)}%`;

if (!json) {
  console.log(`rlnc codec, symbolSize ${SYMBOL_SIZE} B, ${BURST_MS} ms bursts interleaved, MB/s (1 MB = 1e6 B)`);
  if (!HAS_RELAXED) console.log('(no relaxed: this engine rejects relaxed SIMD; Node 20 needs --experimental-wasm-relaxed-simd)');
}

/**
 * Part 1: kernel and API cells of one implementation, interleaved with each other.
 * @param {'relaxed'|'simd'|'scalar'|'js'} impl
 */
async function ratioRow(impl) {
  const k = await kernelVsApi(impl, RATIO_G, SYMBOL_SIZE);
  const runs = [...Object.entries(k.encode).map(([name, op]) => ({ dir: 'encode', name, op, cell: new Cell() })),
    ...Object.entries(k.decode).map(([name, op]) => ({ dir: 'decode', name, op, cell: new Cell() }))];
  for (const r of runs) for (let i = 0; i < WARMUP_OPS; i++) r.op();
  await interleave(runs, seconds * 1000 * runs.length / 2);
  k.dispose();
  /** @type {Record<string, any>} */
  const row = { impl };
  for (const dir of ['encode', 'decode']) {
    const cells = runs.filter((r) => r.dir === dir);
    const kernel = /** @type {Cell} */ (cells.find((r) => r.name === 'kernel')?.cell);
    const km = kernel.quantile(0.5);
    const kb = kernel.quantile(1);
    row[dir] = Object.fromEntries(cells.map((r) => {
      const m = r.cell.quantile(0.5);
      const best = r.cell.quantile(1);
      // each round ran one burst of every cell back to back: under load, the ratio within a
      // round is steadier than the ratio of two medians taken over different moments
      const perRound = r.cell.bursts.map((x, i) => x / kernel.bursts[i]).sort((a, b) => a - b);
      const roundRatio = perRound[Math.floor(perRound.length / 2)];
      return [r.name, { medianMBps: m, bestMBps: best, roundRatio, medianRatio: m / km, bestRatio: best / kb }];
    }));
  }
  return row;
}

const ratios = [];
for (const impl of IMPLS) {
  const row = await ratioRow(impl);
  ratios.push(row);
  if (json) continue;
  if (ratios.length === 1) {
    console.log(`kernel vs API, g=${RATIO_G}: median burst (best burst) MB/s; API/kernel: median of the per-round ratios (ratio of the best bursts)`);
  }
  for (const dir of ['encode', 'decode']) {
    for (const [name, x] of Object.entries(row[dir])) {
      const ratio = name === 'kernel' ? '' : `   ${pct(x.roundRatio)} (${pct(x.bestRatio)})`;
      console.log(`  ${impl.padEnd(7)} ${dir} ${name.padEnd(16)} ${f(x.medianMBps)} (${f(x.bestMBps)})${ratio}`);
    }
  }
}

/** @param {'relaxed'|'simd'|'scalar'|'js'} impl @param {number} g */
async function setup(impl, g) {
  const enc = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 1, impl });
  enc.setSymbols(sampleData(g * SYMBOL_SIZE));
  const ref = await createEncoder({ symbols: g, symbolSize: SYMBOL_SIZE, seed: 2, impl: 'js' });
  ref.setSymbols(sampleData(g * SYMBOL_SIZE));
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
for (const g of ratioOnly ? [] : GENERATIONS) {
  const runs = await Promise.all(IMPLS.map((impl) => setup(impl, g)));
  for (const r of runs) {
    for (let i = 0; i < WARMUP_OPS; i++) { r.encode(); await r.decode(); }
  }
  await interleave(runs.flatMap((r) => [{ op: r.encode, cell: r.encCell }, { op: r.decode, cell: r.decCell }]),
    seconds * 1000 * 2 * IMPLS.length);
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
    if (results.length === 1) {
      console.log('every implementation (encode: writePayloadView), each cell: wall / CPU time / median burst / best burst; simd/js on CPU time');
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
    node: process.version, symbolSize: SYMBOL_SIZE, secondsPerCell: seconds, burstMs: BURST_MS, impls: IMPLS,
    kernelVsApi: { g: RATIO_G, rows: ratios }, results,
  }, null, 2));
}
