// bench:stream runs and says what it measured; a bad option is refused with its code.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('../bench/bench-stream.js', import.meta.url));
const run = promisify(execFile);

describe('bench:stream', function () {
  this.timeout(60_000);

  it('reads a stream range after range through the proxies and reports the times and the origin bytes', async () => {
    const { stdout } = await run(process.execPath, [BENCH, '--ranges', '4', '--passes', '1', '--range-kb', '128', '--origin-rtt-ms', '5', '--proxies', '2', '--json']);
    const r = JSON.parse(stdout);
    assert.deepEqual([r.mode, r.proxies, r.ranges, r.passes], ['range-http', 2, 4, 1]);
    for (const k of ['median', 'mean', 'p90', 'max']) assert.ok(r.rangeMs[k] > 0 && Number.isFinite(r.rangeMs[k]), `rangeMs.${k}`);
    assert.ok(r.answerMs.max >= 0);
    assert.ok(r.origin.requests >= 2 && r.origin.bytes >= 2 * r.streamBytes * 0.5, 'each proxy fetched its part of the stream');
  });

  it('refuses an unknown mode with ERR_BAD_OPTION', async () => {
    await assert.rejects(run(process.execPath, [BENCH, '--mode', 'carrier-pigeon']), (err) => /ERR_BAD_OPTION/.test(String(/** @type {any} */ (err).stderr)));
  });
});
