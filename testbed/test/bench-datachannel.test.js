// `npm run bench:datachannel`: its options, a short paced transfer between two real WebRTC peers
// read from /proc, and the thread wake-up reader under it. Asserts no speed or cost.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { skipOrFail } from '@mutp/testkit/require-tool';
import { switchesBetween, threadSwitches } from '../src/proc-switches.js';

const BENCH = fileURLToPath(new URL('../bin/bench-datachannel.js', import.meta.url));
const RUN_TIMEOUT_MS = 60_000; // two processes' start-up and a 0.5 s transfer: ~3 s idle, more under load
const run = (/** @type {string[]} */ args) => promisify(execFile)(process.execPath, [BENCH, ...args], { timeout: RUN_TIMEOUT_MS });

describe('bench:datachannel', function () {
  this.timeout(RUN_TIMEOUT_MS + 10_000);

  it('prints its usage on --help and refuses bad options with exit 2', async () => {
    const help = await run(['--help']);
    assert.match(help.stdout, /--rates LIST/);
    for (const args of [['--rates', '0'], ['--rates', 'fast'], ['--build', 'nope'], ['--runs', '0'], ['--bogus']]) {
      await assert.rejects(run(args), (/** @type {any} */ err) => {
        assert.equal(err.code, 2, args.join(' '));
        assert.match(err.stderr, /ERR_BAD_OPTION/);
        return true;
      });
    }
  });

  it('measures a paced transfer: bytes through, each end\'s CPU and wake-ups read from /proc', async function () {
    if (!existsSync('/proc/self/task')) skipOrFail(this, 'no /proc/<pid>/task (Linux only)');
    const dir = mkdtempSync(join(tmpdir(), 'mutp-bench-dc-test-'));
    try {
      const json = join(dir, 'out.json');
      const { stdout } = await run(['--runs', '1', '--rates', '2', '--seconds', '0.5', '--json', json]);
      const out = JSON.parse(readFileSync(json, 'utf8'));
      assert.equal(out.transfers.length, 1);
      const t = out.transfers[0];
      assert.equal(t.rateMBps, 2);
      assert.ok(t.sentMB >= 1 && t.receivedMB > 0 && t.receivedMB <= t.sentMB, `sent ${t.sentMB} MB, received ${t.receivedMB}`);
      // paced at 2 MB/s, 1 MB takes ~0.5 s: a sender that ignored the rate would take milliseconds
      assert.ok(t.seconds >= 0.4, `${t.seconds} s`);
      for (const end of [t.sender, t.receiver]) {
        assert.ok(end.cpuMs > 0 && end.msPerMB > 0, `cpu ${end.cpuMs} ms`);
        assert.ok(end.switchesPerMB > 0, JSON.stringify(end.switches));
      }
      assert.match(stdout, /^2 MB\/s\s+\d/m);
      assert.match(stdout, /1-min load average/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a process\'s wake-ups per thread name, and null for a gone process', async function () {
    if (!existsSync('/proc/self/task')) skipOrFail(this, 'no /proc/<pid>/task (Linux only)');
    const before = /** @type {Record<string, number>} */ (threadSwitches(process.pid));
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5)); // the event loop sleeps 5 times
    const gained = switchesBetween(before, /** @type {Record<string, number>} */ (threadSwitches(process.pid)));
    const total = Object.values(gained).reduce((s, n) => s + n, 0);
    assert.ok(total >= 5, JSON.stringify(gained));
    assert.equal(threadSwitches(2 ** 22 + 1), null); // above Linux's pid_max
  });
});
