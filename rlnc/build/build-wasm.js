#!/usr/bin/env node
// Builds csrc/rlnc.c into wasm/rlnc-simd.wasm (SIMD128) and wasm/rlnc-scalar.wasm (no SIMD)
// with Debian's clang + wasm-ld. `--check` rebuilds into a temp dir and fails if the result
// differs from the committed files (CI runs this).
//
// Compile and link are separate steps on purpose: the clang driver runs wasm-opt by itself
// when one is on PATH, which would make the output depend on the machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const PKG_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(PKG_DIR, 'csrc', 'rlnc.c');
const OUT_DIR = join(PKG_DIR, 'wasm');
/** Memory cap of each module in bytes (1 GiB): the JS heap reports it as ERR_RLNC_OUT_OF_MEMORY. */
const MAX_MEMORY_BYTES = 1024 * 1024 * 1024;
/** C stack in bytes: the decoder keeps three 256-entry pointer arrays and two 255-byte arrays there (~3.6 KiB). */
const STACK_BYTES = 64 * 1024;

/** All flavors need bulk memory (memory.copy/fill; Chrome 75+, Firefox 79+, Safari 15+).
 * 'relaxed' also needs relaxed SIMD (Chrome 114+, Node 22+, or Node 20 with
 * --experimental-wasm-relaxed-simd); src/backends.js feature-detects it. */
const FLAVORS = {
  relaxed: ['-msimd128', '-mrelaxed-simd', '-mbulk-memory', '-DRLNC_RELAXED_SWIZZLE'],
  simd: ['-msimd128', '-mbulk-memory'],
  scalar: ['-mno-simd128', '-mbulk-memory'],
};
/** Code section id in the WebAssembly binary format. */
const CODE_SECTION_ID = 10;
/** clang 14 encodes i8x16.relaxed_swizzle with the pre-standard opcode 0xfd 0xa2 (LEB 0xa2 0x01);
 * the standard one, the only one engines accept, is 0xfd 0x100 (LEB 0x80 0x02): same length. */
const RELAXED_SWIZZLE_CLANG14 = Buffer.from([0xfd, 0xa2, 0x01]);
const RELAXED_SWIZZLE_STANDARD = Buffer.from([0xfd, 0x80, 0x02]);

const COMMON_CFLAGS = [
  '--target=wasm32', '-O2', '-ffreestanding', '-nostdlib', '-fno-ident',
  '-Wall', '-Wextra', '-Werror', `-DRLNC_MAX_MEMORY=${MAX_MEMORY_BYTES}`,
];
const LDFLAGS = [
  '--no-entry', '--export=__heap_base', `--max-memory=${MAX_MEMORY_BYTES}`,
  '-z', `stack-size=${STACK_BYTES}`, '--strip-all',
];

/** @param {string[]} names @returns {string | null} */
function findTool(names) {
  for (const name of names) {
    try {
      execFileSync(name, ['--version'], { stdio: 'ignore' });
      return name;
    } catch {
      // try the next name
    }
  }
  return null;
}

/** @param {Buffer} buf @param {number} pos @returns {[number, number]} value and next position */
function readLeb(buf, pos) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, pos];
  }
}

/** @param {Buffer} wasm @returns {{start: number, end: number}} the code section's payload */
function codeSection(wasm) {
  let pos = 8; // magic + version
  while (pos < wasm.length) {
    const id = wasm[pos];
    const [size, start] = readLeb(wasm, pos + 1);
    if (id === CODE_SECTION_ID) return { start, end: start + size };
    pos = start + size;
  }
  throw new Error('build-wasm: no code section');
}

/**
 * Rewrites clang 14's pre-standard relaxed_swizzle opcode to the standard one, in the code
 * section only. `expected` is the count of relaxed_swizzle instructions in clang's assembly
 * output: a different byte count would mean a false match, so the build stops.
 * @param {Buffer} wasm @param {number} expected
 */
function patchRelaxedSwizzle(wasm, expected) {
  const { start, end } = codeSection(wasm);
  const sites = [];
  for (let i = wasm.indexOf(RELAXED_SWIZZLE_CLANG14, start); i >= 0 && i < end; i = wasm.indexOf(RELAXED_SWIZZLE_CLANG14, i + 1)) {
    sites.push(i);
  }
  if (sites.length !== expected) {
    throw new Error(`build-wasm: ${sites.length} relaxed_swizzle byte matches, clang emitted ${expected}; refusing to patch`);
  }
  for (const i of sites) RELAXED_SWIZZLE_STANDARD.copy(wasm, i);
}

/** @param {string} dir */
function buildInto(dir) {
  const clang = findTool(['clang', 'clang-14']);
  const wasmLd = findTool(['wasm-ld', 'wasm-ld-14']);
  if (!clang || !wasmLd) {
    const missing = [!clang && 'clang', !wasmLd && 'wasm-ld'].filter(Boolean).join(' and ');
    console.error(`build-wasm: ${missing} not found. Install Debian's packages: apt-get install clang lld`);
    process.exit(2);
  }
  // a relative source path keeps the build directory out of the output
  const src = relative(process.cwd(), SOURCE);
  for (const [flavor, flags] of Object.entries(FLAVORS)) {
    const obj = join(dir, `rlnc-${flavor}.o`);
    const out = join(dir, `rlnc-${flavor}.wasm`);
    execFileSync(clang, [...COMMON_CFLAGS, ...flags, '-c', '-o', obj, src], { stdio: 'inherit' });
    execFileSync(wasmLd, [...LDFLAGS, '-o', out, obj], { stdio: 'inherit' });
    if (flavor === 'relaxed') {
      const asm = join(dir, `rlnc-${flavor}.s`);
      execFileSync(clang, [...COMMON_CFLAGS, ...flags, '-S', '-o', asm, src], { stdio: 'inherit' });
      const expected = readFileSync(asm, 'utf8').split('\n').filter((l) => /^\s*i8x16\.relaxed_swizzle\b/.test(l)).length;
      const wasm = readFileSync(out);
      patchRelaxedSwizzle(wasm, expected);
      writeFileSync(out, wasm);
    }
  }
}

const check = process.argv.includes('--check');
const tmp = mkdtempSync(join(tmpdir(), 'rlnc-wasm-'));
try {
  buildInto(tmp);
  let differ = 0;
  for (const flavor of Object.keys(FLAVORS)) {
    const name = `rlnc-${flavor}.wasm`;
    const built = readFileSync(join(tmp, name));
    const target = join(OUT_DIR, name);
    if (check) {
      if (!existsSync(target)) {
        console.error(`build-wasm --check: ${relative(process.cwd(), target)} is missing; run npm run build:wasm and commit it`);
        differ++;
      } else if (!built.equals(readFileSync(target))) {
        console.error(`build-wasm --check: ${relative(process.cwd(), target)} differs from what csrc/rlnc.c builds; run npm run build:wasm and commit it`);
        differ++;
      } else {
        console.log(`build-wasm --check: ${name} OK (${built.length} bytes)`);
      }
    } else {
      writeFileSync(target, built);
      console.log(`build-wasm: wrote ${relative(process.cwd(), target)} (${built.length} bytes)`);
    }
  }
  if (differ) process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
