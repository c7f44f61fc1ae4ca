// The browser bundle a site serves (build/bundle.js): the entry is whole, so a page fetches one
// module before it can make its fleet, the fleet's worker is whole beside it, and the MUTP
// transport is a module of its own, loaded only by a MUTP download; each module's imports are read back from the built files by esbuild.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { buildPlayersBundle, BUNDLE_ENTRY } from '../build/bundle.js';

/** What the built module `file` imports: [kind, specifier] pairs, as esbuild reads them. @param {string} file */
async function importsOf(file) {
  const everythingElse = { name: 'external', setup(/** @type {any} */ b) { b.onResolve({ filter: /.*/ }, (/** @type {any} */ a) => (a.kind === 'entry-point' ? undefined : { path: a.path, external: true })); } };
  const { metafile } = await build({ entryPoints: [file], bundle: true, write: false, metafile: true, format: 'esm', logLevel: 'silent', plugins: [everythingElse] });
  const input = Object.values(metafile.inputs)[0];
  return input.imports.map((i) => [i.kind, i.path]);
}

describe('players: the browser bundle', function () {
  this.timeout(60_000);
  /** @type {string} */ let dir;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-bundle-test-'));
    await buildPlayersBundle(dir, { minify: true });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('the entry imports nothing before it runs: its one import is the MUTP transport, on demand', async () => {
    assert.deepEqual(await importsOf(path.join(dir, BUNDLE_ENTRY)), [['dynamic-import', './mutp/index.js']]);
  });

  it('the fleet\'s worker sits next to the entry, whole, and loads the same MUTP transport on demand', async () => {
    assert.deepEqual(await importsOf(path.join(dir, 'mutp-fleet-worker.js')), [['dynamic-import', './mutp/index.js']]);
  });

  it('the MUTP transport is whole too: no import of its own', async () => {
    assert.deepEqual(await importsOf(path.join(dir, 'mutp', 'index.js')), []);
  });
});
