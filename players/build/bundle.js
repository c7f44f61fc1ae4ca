// The plugins as one browser bundle: `mutp-players.js` (an ES module: createFleet and the three
// player integrations) with its chunks, the MUTP transport at `mutp/index.js` (ProxyClientLib
// imports it relative to its own module) and the codec's WebAssembly at `wasm/` (the codec
// fetches ../wasm/ from mutp/ and chunks/). A site serves the folder as it is.
import { build } from 'esbuild';
import { mkdir, readdir, copyFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const BROWSER_TARGETS = ['chrome111', 'firefox128']; // what the extension supports, less its own manifest's needs
export const BUNDLE_ENTRY = 'mutp-players.js';

/**
 * @param {string} outDir  emptied first
 * @param {{minify?: boolean}} [o]
 * @returns {Promise<string>} the entry's path
 */
export async function buildPlayersBundle(outDir, { minify = false } = {}) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(path.join(outDir, 'wasm'), { recursive: true });
  await build({
    bundle: true, platform: 'browser', format: 'esm', splitting: true, target: BROWSER_TARGETS, minify, sourcemap: 'linked',
    logLevel: 'warning', legalComments: 'none', outdir: outDir, chunkNames: 'chunks/[name]-[hash]',
    entryPoints: [
      { in: fileURLToPath(import.meta.resolve('@mutp/players/all')), out: BUNDLE_ENTRY.replace(/\.js$/, '') },
      { in: fileURLToPath(import.meta.resolve('@mutp/proxyclientlib/mutp')), out: 'mutp/index' },
    ],
  });
  const wasmDir = path.dirname(fileURLToPath(import.meta.resolve('@mutp/rlnc/wasm/rlnc-simd.wasm')));
  for (const f of await readdir(wasmDir)) if (f.endsWith('.wasm')) await copyFile(path.join(wasmDir, f), path.join(outDir, 'wasm', f));
  return path.join(outDir, BUNDLE_ENTRY);
}
