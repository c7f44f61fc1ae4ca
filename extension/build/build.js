#!/usr/bin/env node
// Builds dist/chrome and dist/firefox (MV3 each) from src/, and a zip package of each.
// `node build/build.js [--no-zip] [--config FILE] [--out DIR]`
// --config FILE (tests only): a TEST build whose default settings are FILE's JSON object (e.g.
// the local Origo URL and the test site's patterns), validated by the extension like stored
// settings. It exists because Firefox's WebDriver BiDi cannot open moz-extension: pages, so a
// test cannot use the options page there. The product build never has it.
// --out DIR: build there instead of dist/ (tests build their own copy).
import { build } from 'esbuild';
import { mkdir, rm, writeFile, copyFile, readFile, readdir } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { manifest } from './manifest.js';
import { codedError } from '@mutp/common/errors';

const run = promisify(execFile);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const src = (p) => path.join(root, 'src', p);
const TARGETS = /** @type {const} */ (['chrome', 'firefox']);
const BROWSER_TARGETS = ['chrome111', 'firefox142']; // the manifests' minimum versions
const STATIC = ['frame/frame.html', 'options/options.html', 'options/options.css', 'popup/popup.html', 'popup/popup.css'];
// the page that hosts the fleet client (fleet-host.js): Chrome's offscreen document, Firefox's background page (build/manifest.js)
const FLEET_HOME_PAGE = { chrome: 'fleet-home/offscreen.html', firefox: 'fleet-home/background.html' };

const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const noZip = process.argv.includes('--no-zip');
/** @param {string} flag */
function optionValue(flag) {
  const at = process.argv.indexOf(flag);
  if (at < 0) return null;
  const v = process.argv[at + 1];
  if (!v || v.startsWith('--')) throw codedError('ERR_BAD_OPTION', `${flag} needs a value`);
  return v;
}
const dist = path.resolve(optionValue('--out') ?? path.join(root, 'dist'));
const configFile = optionValue('--config');
const baked = configFile ? JSON.parse(await readFile(configFile, 'utf8')) : null;
if (baked !== null && (typeof baked !== 'object' || Array.isArray(baked))) throw codedError('ERR_BAD_OPTION', '--config FILE must hold a JSON object');

for (const target of TARGETS) {
  const out = path.join(dist, target);
  await rm(out, { recursive: true, force: true }); // only our own output: --out may name a shared folder
  await mkdir(out, { recursive: true });
  const common = { bundle: true, platform: /** @type {const} */ ('browser'), target: BROWSER_TARGETS, sourcemap: /** @type {const} */ ('linked'), logLevel: /** @type {const} */ ('warning'), legalComments: /** @type {const} */ ('none'),
    define: { 'globalThis.__MUTP_BAKED_SETTINGS__': JSON.stringify(baked) },
    // picks the engine's rules (extension/package.json "imports": #engine-rules)
    conditions: [target === 'chrome' ? 'chromium' : 'gecko'] };
  // classic scripts: content scripts and the background cannot be modules in both browsers
  await build({
    ...common, format: 'iife', outdir: out,
    entryPoints: [
      { in: src('page/main-world.js'), out: 'content-main' },
      { in: src('bridge/bridge.js'), out: 'content-bridge' },
      { in: src('background/background.js'), out: 'background' },
      { in: src('options/options.js'), out: 'options' },
      { in: src('popup/popup.js'), out: 'popup' },
    ],
  });
  // the frame and the fleet host are module pages. ProxyClientLib loads its MUTP transport with import('./mutp/index.js')
  // relative to the frame bundle, so the transport is its own entry at that path.
  await build({
    ...common, format: 'esm', splitting: true, outdir: out, chunkNames: 'chunks/[name]-[hash]',
    entryPoints: [
      { in: src('frame/frame.js'), out: 'frame' },
      { in: src('frame/fleet-page.js'), out: 'fleet-host' },
      { in: fileURLToPath(import.meta.resolve('@mutp/proxyclientlib/mutp')), out: 'mutp/index' },
    ],
  });
  // the codec fetches ../wasm/rlnc-*.wasm relative to its module: from /, /mutp/ or /chunks/ that is /wasm/
  await mkdir(path.join(out, 'wasm'), { recursive: true });
  const wasmDir = path.dirname(fileURLToPath(import.meta.resolve('@mutp/rlnc/wasm/rlnc-simd.wasm')));
  for (const f of await readdir(wasmDir)) if (f.endsWith('.wasm')) await copyFile(path.join(wasmDir, f), path.join(out, 'wasm', f));
  for (const f of [...STATIC, FLEET_HOME_PAGE[target]]) await copyFile(src(f), path.join(out, path.basename(f)));
  await writeFile(path.join(out, 'manifest.json'), JSON.stringify(manifest(target, version, { testBuild: baked !== null }), null, 2) + '\n');
  if (!noZip) {
    const webExt = path.join(root, '..', 'node_modules', '.bin', 'web-ext');
    await run(webExt, ['build', '--source-dir', out, '--artifacts-dir', dist, '--filename', `mutp-proxy-client-${target}-${version}.zip`, '--overwrite-dest'], { cwd: root });
  }
  process.stdout.write(`built ${path.relative(process.cwd(), out)}${noZip ? '' : ` and dist/mutp-proxy-client-${target}-${version}.zip`}\n`);
}
