#!/usr/bin/env node
// Builds the proxy's tuned WebRTC: node-datachannel's own C++ sources (from its npm package),
// patched so setSctpSettings passes maxBurst and lossTolerant through, linked against the
// libdatachannel tree (with usrsctp, libjuice, plog) that the datachannel-sys crate carries,
// patched so usrsctp can leave random loss on unordered PR-SCTP chunks out of its congestion
// response, libjuice so a triggered ICE check goes out at once, and ICE and DTLS so the proxy's
// DTLS handshake starts on a client's first check, and node-datachannel's wrapper so a callback
// outlives a close that races the stack's own (rtc-build.json lists the patches and the tree each
// applies to). Output:
// proxy/native/build/node-datachannel/, a copy of the npm package with its addon in build/,
// which proxy/src/rtc/wrtc.js loads when present. See proxy/native/README.md.
//
// Needs cmake, a C++17 compiler, OpenSSL headers and static libraries (Debian: cmake g++
// libssl-dev; ninja-build is used when present). Downloads only the crate, from crates.io,
// and checks its sha256 against rtc-build.json.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NATIVE_DIR = dirname(fileURLToPath(import.meta.url));
const BUILD_DIR = join(NATIVE_DIR, 'build');
const OUT_DIR = join(BUILD_DIR, 'node-datachannel');
const PIN = JSON.parse(readFileSync(join(NATIVE_DIR, 'rtc-build.json'), 'utf8'));
/** Parallel compile jobs: the project's machines have 2 cores, shared. */
const BUILD_JOBS = Number(process.env.RTC_BUILD_JOBS ?? 2);
/** A crate download taking longer than this (ms) is abandoned: it is ~2 MB. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

const require = createRequire(join(NATIVE_DIR, '..', 'package.json'));

/** @param {string} message @param {string} code @returns {never} */
function fail(message, code) {
  const err = /** @type {Error & { code: string }} */ (new Error(message));
  err.code = code;
  throw err;
}

/** @param {string} cmd @param {string[]} args @param {import('node:child_process').ExecFileSyncOptions} [opts] */
function run(cmd, args, opts = {}) {
  console.log(`build-rtc: ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', ...opts });
}

/** @param {string} name @returns {boolean} */
function hasTool(name) {
  try {
    execFileSync(name, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** @param {Buffer} buf @returns {string} */
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** The installed node-datachannel package directory; its version must be the pinned one. */
function stockPackageDir() {
  // exports hide package.json; the main entry is dist/cjs/lib/index.cjs.
  const dir = join(dirname(require.resolve('node-datachannel')), '..', '..', '..');
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (version !== PIN.nodeDatachannel) {
    fail(`node-datachannel ${version} is installed but rtc-build.json pins ${PIN.nodeDatachannel}: update the pin and the patch together`, 'ERR_RTC_BUILD_VERSION');
  }
  if (!existsSync(join(dir, 'src', 'cpp')) || !existsSync(join(dir, 'CMakeLists.txt'))) {
    fail(`${dir} has no C++ sources (src/cpp, CMakeLists.txt)`, 'ERR_RTC_BUILD_SOURCES');
  }
  return dir;
}

/** The crate file, from the build cache, cargo's cache or crates.io; always checked against the pin. */
async function fetchCrate() {
  const { name, version, sha256: want } = PIN.crate;
  const file = `${name}-${version}.crate`;
  const cached = join(BUILD_DIR, 'downloads', file);
  const candidates = [cached];
  const cargoCache = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'registry', 'cache');
  if (existsSync(cargoCache)) {
    for (const reg of readdirSync(cargoCache)) candidates.push(join(cargoCache, reg, file));
  }
  for (const path of candidates) {
    if (existsSync(path) && sha256(readFileSync(path)) === want) {
      if (path !== cached) {
        mkdirSync(dirname(cached), { recursive: true });
        cpSync(path, cached);
      }
      return cached;
    }
  }
  const urls = [
    `https://static.crates.io/crates/${name}/${name}-${encodeURIComponent(version)}.crate`,
    `https://crates.io/api/v1/crates/${name}/${encodeURIComponent(version)}/download`,
  ];
  const errors = [];
  for (const url of urls) {
    try {
      console.log(`build-rtc: downloading ${url}`);
      const res = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), headers: { 'user-agent': 'mutp-build-rtc' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const buf = Buffer.from(await res.arrayBuffer());
      const got = sha256(buf);
      if (got !== want) fail(`${url}: sha256 ${got}, rtc-build.json pins ${want}`, 'ERR_RTC_BUILD_CHECKSUM');
      mkdirSync(dirname(cached), { recursive: true });
      writeFileSync(cached, buf);
      return cached;
    } catch (err) {
      if (/** @type {{ code?: string }} */ (err).code === 'ERR_RTC_BUILD_CHECKSUM') throw err;
      errors.push(`${url}: ${/** @type {Error} */ (err).message}`);
    }
  }
  return fail(`could not download ${file}:\n  ${errors.join('\n  ')}`, 'ERR_RTC_BUILD_DOWNLOAD');
}

/** Node's headers from the running Node install (never downloaded). */
function nodeIncludeDir() {
  const dirs = [join(dirname(process.execPath), '..', 'include', 'node'), '/usr/include/node', '/usr/local/include/node'];
  const dir = dirs.find((d) => existsSync(join(d, 'node_api.h')));
  return dir ?? fail(`no node_api.h in ${dirs.join(', ')}: install Node's headers`, 'ERR_RTC_BUILD_TOOL');
}

async function main() {
  const started = Date.now();
  for (const tool of ['cmake', 'patch', 'tar']) {
    if (!hasTool(tool)) fail(`${tool} not found (Debian: apt-get install cmake patch g++ libssl-dev ninja-build)`, 'ERR_RTC_BUILD_TOOL');
  }
  const stockDir = stockPackageDir();
  const addonApiDir = dirname(require.resolve('node-addon-api/package.json'));
  const nodeInc = nodeIncludeDir();
  const crate = await fetchCrate();
  /** @type {{ file: string, tree: 'node-datachannel' | 'libdatachannel' }[]} */
  const patches = PIN.patches;
  const patchSums = patches.map((p) => `${p.tree}:${p.file}:${sha256(readFileSync(join(NATIVE_DIR, p.file)))}`);
  const stamp = `${PIN.crate.sha256} ${patchSums.join(' ')} ${PIN.nodeDatachannel}`;

  // Sources: the crate's libdatachannel tree and the patched node-datachannel package. Kept
  // between runs (same stamp) so a rebuild is incremental.
  const srcDir = join(BUILD_DIR, 'src');
  const stampFile = join(srcDir, 'stamp');
  const pkgSrc = join(srcDir, 'node-datachannel');
  const libTree = join(srcDir, `${PIN.crate.name}-${PIN.crate.version}`, 'libdatachannel');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
    rmSync(srcDir, { recursive: true, force: true });
    rmSync(join(BUILD_DIR, 'cmake'), { recursive: true, force: true });
    mkdirSync(pkgSrc, { recursive: true });
    run('tar', ['-xzf', crate, '-C', srcDir]);
    for (const part of ['CMakeLists.txt', 'package.json', 'src']) cpSync(join(stockDir, part), join(pkgSrc, part), { recursive: true });
    for (const p of patches) {
      const tree = { 'node-datachannel': pkgSrc, libdatachannel: libTree }[p.tree] ?? fail(`rtc-build.json: unknown patch tree ${p.tree}`, 'ERR_RTC_BUILD_PATCH');
      run('patch', ['-p1', '--forward', '--batch', '-d', tree, '-i', join(NATIVE_DIR, p.file)]);
    }
    writeFileSync(stampFile, stamp);
  }

  const cmakeDir = join(BUILD_DIR, 'cmake');
  const generator = hasTool('ninja') ? ['-G', 'Ninja'] : [];
  run('cmake', [
    '-S', pkgSrc, '-B', cmakeDir, ...generator,
    '-DCMAKE_BUILD_TYPE=Release',
    `-DFETCHCONTENT_SOURCE_DIR_LIBDATACHANNEL=${libTree}`,
    '-DFETCHCONTENT_FULLY_DISCONNECTED=ON',
    // Data channels only: no media/SRTP, no WebSocket, no tests or examples.
    '-DNO_MEDIA=ON', '-DNO_WEBSOCKET=ON', '-DNO_EXAMPLES=ON', '-DNO_TESTS=ON',
    `-DCMAKE_JS_INC=${nodeInc};${addonApiDir}`,
  ]);
  run('cmake', ['--build', cmakeDir, '--target', 'node_datachannel', '-j', String(BUILD_JOBS)]);

  // Assemble the package copy next to the output, then swap it in whole.
  const next = `${OUT_DIR}.next`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(join(next, 'build'), { recursive: true });
  cpSync(join(stockDir, 'package.json'), join(next, 'package.json'));
  cpSync(join(stockDir, 'dist'), join(next, 'dist'), { recursive: true });
  cpSync(join(cmakeDir, 'node_datachannel.node'), join(next, 'build', 'node_datachannel.node'));
  const binding = createRequire(import.meta.url)(join(next, 'build', 'node_datachannel.node'));
  if (binding.sctpSettingsMaxBurst !== true) fail('the built addon lacks the maxBurst patch', 'ERR_RTC_BUILD_PATCH');
  if (binding.sctpSettingsLossTolerant !== true) fail('the built addon lacks the lossTolerant patch', 'ERR_RTC_BUILD_PATCH');
  const manifest = {
    nodeDatachannel: PIN.nodeDatachannel,
    libdatachannel: binding.getLibraryVersion(),
    crate: `${PIN.crate.name}@${PIN.crate.version}`,
    crateSha256: PIN.crate.sha256,
    patches: patches.map((p) => p.file),
    builtAt: new Date().toISOString(),
    buildSeconds: Math.round((Date.now() - started) / 1000),
  };
  writeFileSync(join(next, 'mutp-build.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(OUT_DIR, { recursive: true, force: true });
  renameSync(next, OUT_DIR);
  console.log(`build-rtc: ${OUT_DIR} (libdatachannel ${manifest.libdatachannel}, ${manifest.buildSeconds} s)`);
}

main().catch((err) => {
  console.error(`build-rtc: ${err.code ?? 'ERR_RTC_BUILD'}: ${err.message}`);
  process.exit(1);
});
