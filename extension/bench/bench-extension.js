#!/usr/bin/env node
// Extension performance bench: against the local fleet (Origo + proxies in this
// process, 127.0.0.1, unshaped) and headless Debian Chromium with a bench build of the extension.
// Options: USAGE below.
// Phase 1: added latency per ~1 MiB chunk, per fixed mode, vs the browser's own fetch.
// Phase 2: MB/s of the extension frame → page byte path (MessageChannel, transferred buffers).
// --cpu-profile DIR: Chromium's CPU profile of the fleet host (the offscreen document) over each
// mode's measured rounds, written to DIR/fleet-host-<mode>.cpuprofile and summarized.
// --browser-threads: each of the browser's threads' CPU time over each mode's measured rounds (Linux
// /proc), per MB: what the bytes cost the browser's own network and WebRTC threads.
// A bench, not a test: it prints numbers and asserts only that the bytes are right.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { startVideoSite, CHUNK_BYTES } from '@mutp/testkit/e2e/site/server';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium, exists, CHROMIUM, BENCH_BROWSER } from '@mutp/testkit/e2e/helpers/browsers';
import { measureModeLatency } from './latency.js';
import { measureBytePath } from './byte-path.js';
import { formatReport } from './report.js';
import { browserThreadCpu } from './browser-threads.js';
import { benchOptions, progress, onShutdown, withoutForeignSignalHandlers, runBench } from './lifecycle.js';
import { codedError } from '@mutp/common/errors';

const run = promisify(execFile);
const EXT_ROOT = fileURLToPath(new URL('../', import.meta.url));
const ALL_BENCH_MODES = ['parallel-http', 'range-http', 'uncoded', 'coded']; // every mode the extension offers
const BUILD_TIMEOUT_MS = 120_000; // esbuild is fast, but the box is shared by several agents
const SYMBOL_PAYLOAD_BYTES = 26_400; // one MUTP generation's worth a frame posts at a time: 24 × 1100 B symbols
const BYTE_PATH_SIZES = [
  { bytes: SYMBOL_PAYLOAD_BYTES, count: 2000 }, // ~53 MB per run: many small messages
  { bytes: 1024 * 1024, count: 64 }, // 64 MiB per run: whole chunks (a body no piece of which was streamed, posted at the end)
];

const USAGE = `usage: node extension/bench/bench-extension.js [--json] [--k 20] [--n 4] [--warmup 4]
    [--modes parallel-http,range-http,uncoded,coded] [--repeats 3] [--cpu-profile DIR] [--browser-threads]`;

const opt = benchOptions({
  json: { type: 'boolean', default: false },
  k: { type: 'string', default: '20' },
  n: { type: 'string', default: '4' },
  warmup: { type: 'string', default: '4' }, // the startup gate's RTC_CONNECT_AFTER_DOWNLOADS
  repeats: { type: 'string', default: '3' },
  modes: { type: 'string', default: ALL_BENCH_MODES.join(',') },
  'cpu-profile': { type: 'string' },
  'browser-threads': { type: 'boolean', default: false },
}, USAGE);
const intOpt = (name, min, max) => {
  const v = Number(opt[name]);
  if (!Number.isInteger(v) || v < min || v > max) throw codedError('ERR_BAD_OPTION', `--${name} must be an integer ${min}..${max}`);
  return v;
};
async function main() {
  const k = intOpt('k', 1, 1000);
  const n = intOpt('n', 1, 16);
  const warmup = intOpt('warmup', 0, 100);
  const repeats = intOpt('repeats', 1, 100);
  const modes = opt.modes.split(',').map((m) => m.trim()).filter(Boolean);
  const unknown = modes.filter((m) => !ALL_BENCH_MODES.includes(m));
  if (modes.length === 0 || unknown.length) throw codedError('ERR_BAD_OPTION', `--modes: unknown ${unknown.join(', ')}`);
  if (!(await exists(CHROMIUM))) throw codedError('ERR_NO_BROWSER', `${CHROMIUM} is missing`);
  const profileDir = opt['cpu-profile'] === undefined ? null : path.resolve(opt['cpu-profile']);
  if (profileDir !== null && warmup < 1) throw codedError('ERR_BAD_OPTION', '--cpu-profile needs --warmup ≥ 1: the first download makes the fleet host');
  if (opt['browser-threads'] && process.platform !== 'linux') throw codedError('ERR_BAD_OPTION', '--browser-threads reads Linux\'s /proc');
  if (profileDir !== null) await mkdir(profileDir, { recursive: true });

  const loadAtStart = os.loadavg()[0];
  progress('phase: build the extension (bench copy)');
  const out = await mkdtemp(path.join(os.tmpdir(), 'mutp-bench-ext-'));
  onShutdown(() => rm(out, { recursive: true, force: true }));
  await run(process.execPath, [path.join(EXT_ROOT, 'build', 'build.js'), '--no-zip', '--out', out], { timeout: BUILD_TIMEOUT_MS });

  progress(`phase: start the site and the fleet (${n} proxies)`);
  // the bench only needs distinct bytes per range, not a playable video
  const video = Buffer.alloc(k * CHUNK_BYTES);
  for (let i = 0, x = 0x9e3779b9; i < video.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    video[i] = x & 0xff;
  }
  const site = await startVideoSite({ video, mime: 'video/mp4' });
  onShutdown(() => site.close());
  const fleet = await startLocalFleet({ proxyCount: n, allowedHosts: [site.host] });
  onShutdown(() => fleet.close());

  progress('phase: launch headless Chromium with the extension');
  const chrome = await withoutForeignSignalHandlers(() => launchChromium(path.join(out, 'chrome'), BENCH_BROWSER));
  onShutdown(() => chrome.close());

  const browserPid = chrome.browser.process()?.pid;
  if (opt['browser-threads'] && !browserPid) throw codedError('ERR_BENCH_SETUP', '--browser-threads: the browser was not started by this process');
  const threadsOf = opt['browser-threads'] ? () => browserThreadCpu(/** @type {number} */ (browserPid)) : undefined;
  const latency = [];
  for (const mode of modes) {
    progress(`phase: latency, mode ${mode}, ${warmup} warm-up + ${k} rounds`);
    latency.push(await measureModeLatency({
      browser: chrome.browser, base: chrome.base, site, origo: fleet.origo, video, mode, n, k, warmup, chunkBytes: CHUNK_BYTES, progress,
      profileFile: profileDir === null ? undefined : path.join(profileDir, `fleet-host-${mode}.cpuprofile`), threadsOf,
    }));
  }

  progress('phase: frame → page byte path');
  const page = await chrome.browser.newPage();
  await page.goto(`${site.url}/plain.html`);
  // one matching fetch makes the extension insert its download frame
  await page.evaluate((u) => fetch(u).then((r) => r.arrayBuffer()).then(() => undefined), `${site.url}/videoplayback?id=bench-frame&range=0-1023`);
  const bytePath = await measureBytePath({ page, base: chrome.base, sizes: BYTE_PATH_SIZES, repeats, progress });
  await page.close();

  const version = await chrome.browser.version();
  return {
    setup: { browser: version, host: `${os.cpus().length} cores, load (1 min) ${loadAtStart.toFixed(2)} at start, ${os.loadavg()[0].toFixed(2)} at end`, proxies: n, chunkBytes: CHUNK_BYTES, shaping: 'none (loopback)', note: 'shared, noisy machine: treat as orders of magnitude' },
    latency, bytePath,
  };
}

await runBench(main, (result) => (opt.json ? `${JSON.stringify(result, null, 2)}\n` : formatReport(result)));
