// The extension benches' command lines: --help prints the usage, a bad option says so with the
// usage; neither starts a browser.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BENCHES = ['bench-players.js', 'bench-extension.js'].map((f) => fileURLToPath(new URL(`../bench/${f}`, import.meta.url)));

describe('extension benches: options', () => {
  for (const bench of BENCHES) {
    const name = bench.split('/').pop();
    it(`${name}: --help prints the usage (exit 0); an unknown option the error and the usage (exit 2)`, () => {
      const help = spawnSync(process.execPath, [bench, '--help'], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^usage: node extension/bench/${name.replace('.', '\\.')} \\[--json\\]`));
      const bad = spawnSync(process.execPath, [bench, '--bogus'], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /Unknown option '--bogus'[\s\S]*usage:/);
      assert.doesNotMatch(bad.stderr, /at parseArgs/, 'no stack trace');
    });
  }
});
