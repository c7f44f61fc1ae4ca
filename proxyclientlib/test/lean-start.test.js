// What a `mutp` process loads before it knows the download's mode: neither the codec nor the
// MUTP transport (and its WebRTC) nor the progress bar's library, so an HTTP download and
// `mutp --help` start without them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REGISTER = fileURLToPath(new URL('./fixtures/register-record-imports.mjs', import.meta.url));
const CLI_MAIN = new URL('../src/cli/main.js', import.meta.url).href;
const CLIENT = new URL('../index.js', import.meta.url).href;
/** Modules only an MUTP download (or a terminal's progress bar) needs. */
const MUTP_ONLY = /\/rlnc\/|\/protocol\/index\.js$|\/protocol\/src\/(codec|create|coded-sender|coded-receiver|download-controller)\.js$|\/src\/mutp\/|node-datachannel|cli-progress/;

describe('lean start', () => {
  it('the CLI and the client load no codec, no MUTP transport, no progress bar library until they need them', () => {
    const r = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', `await import(${JSON.stringify(CLI_MAIN)}); await import(${JSON.stringify(CLIENT)});`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const loaded = r.stderr.split('\n').filter((l) => l.startsWith('file:') || l.startsWith('node:'));
    assert.ok(loaded.some((u) => u.endsWith('/src/cli/main.js')) && loaded.some((u) => u.endsWith('/src/http/range-http.js')), 'the hooks saw the CLI and the HTTP modes load');
    assert.deepEqual(loaded.filter((u) => MUTP_ONLY.test(u)), []);
  });
});
