// The plugins as one browser bundle: `mutp-players.js` (an ES module: createFleet and the three
// player integrations), the fleet host's worker `mutp-fleet-worker.js` (started from next to the
// entry), the MUTP transport at `mutp/index.js` (ProxyClientLib imports it relative to its own
// module, when a MUTP download first needs it) and the codec's WebAssembly at `wasm/` (the codec
// fetches ../wasm/ from mutp/). A site serves the folder as it is.
// Each module is built whole, with no shared chunk: a shared chunk is a static import of the
// entry, which a browser asks for only once it has the entry, a second request in series before
// the page can make its fleet (Chromium, loopback: the plugins' scripts ready 20-30 ms after the
// player's own). The transport repeats the ~45 KB of code it shares with the entry instead.
import { build } from 'esbuild';
import { mkdir, mkdtemp, readdir, copyFile, rm, readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const TYPES = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.map': 'application/json' };
const BROWSER_TARGETS = ['chrome111', 'firefox128']; // what the extension supports, less its own manifest's needs
export const BUNDLE_ENTRY = 'mutp-players.js';
const TRANSPORT_FILE = 'mutp/index.js'; // where mutp-loader.js imports the transport from, relative to the entry
const WORKER_FILE = 'mutp-fleet-worker.js'; // the fleet host's worker (src/host-thread.js starts it from next to the entry)

/**
 * @param {string} outDir  emptied first
 * @param {{minify?: boolean}} [o]
 * @returns {Promise<string>} the entry's path
 */
export async function buildPlayersBundle(outDir, { minify = false } = {}) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(path.join(outDir, 'wasm'), { recursive: true });
  const common = /** @type {const} */ ({ bundle: true, platform: 'browser', format: 'esm', splitting: false, target: BROWSER_TARGETS, minify, sourcemap: 'linked', logLevel: 'warning', legalComments: 'none' });
  await Promise.all([
    build({ ...common, outfile: path.join(outDir, BUNDLE_ENTRY), entryPoints: [fileURLToPath(import.meta.resolve('@mutp/players/all'))], plugins: [transportApart] }),
    build({ ...common, outfile: path.join(outDir, WORKER_FILE), entryPoints: [fileURLToPath(import.meta.resolve('@mutp/players/worker'))], plugins: [transportApart] }),
    build({ ...common, outfile: path.join(outDir, TRANSPORT_FILE), entryPoints: [fileURLToPath(import.meta.resolve('@mutp/proxyclientlib/mutp'))] }),
  ]);
  const wasmDir = path.dirname(fileURLToPath(import.meta.resolve('@mutp/rlnc/wasm/rlnc-simd.wasm')));
  for (const f of await readdir(wasmDir)) if (f.endsWith('.wasm')) await copyFile(path.join(wasmDir, f), path.join(outDir, 'wasm', f));
  return path.join(outDir, BUNDLE_ENTRY);
}

/**
 * ProxyClientLib's import of its MUTP transport (mutp-loader.js: `import('./mutp/index.js')`) left
 * as it is: from the entry, the same relative URL names the transport's own module.
 * @type {import('esbuild').Plugin}
 */
const transportApart = {
  name: 'mutp-transport-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/mutp\/index\.js$/ }, (args) => (args.importer.endsWith(path.join('proxyclientlib', 'src', 'mutp-loader.js')) ? { path: `./${TRANSPORT_FILE}`, external: true } : undefined));
  },
};

/**
 * A file of a built bundle, as a server sends it; null for a path outside the folder.
 * @param {string} dir  buildPlayersBundle's
 * @param {string} rel  its path in the folder, from a URL
 * @returns {Promise<{type: string, body: Buffer} | null>}  rejects when there is no such file
 */
export async function bundleFile(dir, rel) {
  const file = path.join(dir, path.normalize(rel));
  if (!file.startsWith(dir + path.sep)) return null;
  return { type: TYPES[path.extname(file)] ?? 'application/octet-stream', body: await readFile(file) };
}

/**
 * The bundle built in a folder of its own under the system's temp folder, for a server that
 * serves it while it runs (`npm start`, the tests' player site, the bench).
 * @param {{minify?: boolean}} [o]
 * @returns {Promise<{file: (rel: string) => ReturnType<typeof bundleFile>, remove: () => Promise<void>}>}
 */
export async function buildTempBundle(o = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-players-bundle-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await buildPlayersBundle(dir, o);
  } catch (err) {
    await remove();
    throw err;
  }
  return { file: (rel) => bundleFile(dir, rel), remove };
}
