#!/usr/bin/env node
// A/B of raw WASM kernels (rlnc_encode, rlnc_decode) without the JS API, for tuning csrc/rlnc.c.
// Usage: node rlnc/bench/bench-kernels.js [--g 24] [--size 1100] [--rounds 100] [a.wasm b.wasm ...]
// Without files: the committed builds. Build a variant with the flags of build/build-wasm.js
// (e.g. an old commit's wasm: git show REV:rlnc/wasm/rlnc-simd.wasm > /tmp/old.wasm).
// Variants run interleaved in short bursts in one process, so they share the machine's load;
// compare the best and the median burst, not single runs. Decoded data is checked byte for byte
// and every variant's encoder output must equal the first one's.
import { readFileSync } from 'node:fs';

/** Length of one burst in ms. */
const BURST_MS = 2;
/** Warm-up bursts per variant and direction (V8 tiers WASM up to TurboFan). */
const WARMUP_BURSTS = 5;
/** Distinct coefficient vectors cycled through by the encoder. */
const COEFF_VECTORS = 64;
/** Extra pre-encoded packets beyond g, for non-innovative ones. */
const EXTRA_PACKETS = 8;
/** WASM page size in bytes. */
const PAGE_BYTES = 65536;
const MB = 1e6;

const argv = process.argv.slice(2);
/** @param {string} name @param {number} dflt */
function numArg(name, dflt) {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  return v;
}
const g = numArg('--g', 24);
const size = numArg('--size', 1100);
const rounds = numArg('--rounds', 100);
const defaults = ['relaxed', 'simd', 'scalar'].map((f) => new URL(`../wasm/rlnc-${f}.wasm`, import.meta.url).pathname);
const files = argv.length ? argv : defaults;

/** @param {number} i */
const sample = (i) => (i * 167 + 13) & 0xff;

/** @param {string} file */
async function load(file) {
  const bytes = readFileSync(file);
  if (!WebAssembly.validate(bytes)) return null;
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const ex = /** @type {any} */ (instance.exports);
  ex.rlnc_init();
  const payload = g + size;
  // layout after the module's own data: symbols | coefficient vectors | packets | decoder | output
  const sym = ex.__heap_base.value + 64;
  const coefs = sym + g * size + 64;
  const pk = coefs + COEFF_VECTORS * g + 64;
  const packets = g + EXTRA_PACKETS;
  const cm = pk + packets * payload + 64;
  const dm = cm + g * g + 64;
  const piv = dm + g * size + 64;
  const row = piv + g + 64;
  const out = row + payload + 64;
  const need = out + size + 64;
  const memory = /** @type {WebAssembly.Memory} */ (ex.memory);
  if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE_BYTES));
  const mem = new Uint8Array(memory.buffer);
  for (let i = 0; i < g * size; i++) mem[sym + i] = sample(i);
  let x = 12345;
  for (let i = 0; i < COEFF_VECTORS * g; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    mem[coefs + i] = (x >>> 24) || 1;
  }
  for (let p = 0; p < packets; p++) {
    const at = pk + p * payload;
    mem.copyWithin(at, coefs + p * g, coefs + (p + 1) * g);
    ex.rlnc_encode(at + g, sym, at, g, size);
  }
  let n = 0;
  const encode = () => {
    for (let i = 0; i < 16; i++, n++) ex.rlnc_encode(out, sym, coefs + (n % COEFF_VECTORS) * g, g, size);
    return 16 * size;
  };
  const decode = () => {
    mem.fill(0, cm, cm + g * g);
    mem.fill(0, piv, piv + g);
    let rank = 0;
    for (let p = 0; rank < g; p++) {
      mem.copyWithin(row, pk + p * payload, pk + (p + 1) * payload);
      if (ex.rlnc_decode(cm, dm, piv, row, g, size) >= 0) rank++;
    }
    return g * size;
  };
  return { file, mem, out, dm, encode, decode, enc: /** @type {number[]} */ ([]), dec: /** @type {number[]} */ ([]) };
}

/** @param {() => number} op @param {number[] | null} into */
function burst(op, into) {
  const t0 = performance.now();
  let now = t0;
  let bytes = 0;
  do {
    bytes += op();
    now = performance.now();
  } while (now - t0 < BURST_MS);
  if (into) into.push(bytes / MB / ((now - t0) / 1000));
}

const variants = [];
for (const f of files) {
  const v = await load(f);
  if (v) variants.push(v);
  else console.log(`${f}: this engine rejects it (relaxed SIMD on Node 20 needs --experimental-wasm-relaxed-simd)`);
}
if (variants.length === 0) process.exit(1);
// correctness first: same encoder output as the first variant, decoded data byte-exact
for (const v of variants) {
  v.encode();
  v.decode();
  const ref = variants[0];
  for (let i = 0; i < size; i++) {
    if (v.mem[v.out + i] !== ref.mem[ref.out + i]) throw new Error(`${v.file}: encoder output differs at byte ${i}`);
  }
  for (let i = 0; i < g * size; i++) {
    if (v.mem[v.dm + i] !== sample(i)) throw new Error(`${v.file}: decoded byte ${i} is wrong`);
  }
}
for (const v of variants) for (let i = 0; i < WARMUP_BURSTS; i++) { burst(v.encode, null); burst(v.decode, null); }
for (let r = 0; r < rounds; r++) {
  for (const v of r % 2 ? [...variants].reverse() : variants) { burst(v.encode, v.enc); burst(v.decode, v.dec); }
}
/** @param {number[]} a @param {number} q */
const quantile = (a, q) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))];
const f = (/** @type {number} */ x) => x.toFixed(0).padStart(5);
console.log(`g=${g} size=${size}, ${rounds} rounds of ${BURST_MS} ms bursts; MB/s: median / p75 / best`);
for (const v of variants) {
  console.log(`${v.file.split('/').pop()?.padEnd(22)} enc ${f(quantile(v.enc, 0.5))} /${f(quantile(v.enc, 0.75))} /${f(Math.max(...v.enc))}`
    + `   dec ${f(quantile(v.dec, 0.5))} /${f(quantile(v.dec, 0.75))} /${f(Math.max(...v.dec))}`);
}
