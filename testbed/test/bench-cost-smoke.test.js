// `npm run bench:cost` end to end on loopback: Origo, the origin, 4 proxy processes and the client
// agent; two warm-up rounds and one measured round of every mode. Each mode must give a verified download
// whose proxies' and client's CPU were read from /proc. Asserts no speed or cost: that is the bench's job.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { skipOrFail } from '@mutp/testkit/require-tool';
import { runBenchJson } from '@mutp/testkit/bench-run';
import { MODES } from '../src/cost/summary.js';

const BENCH = fileURLToPath(new URL('../bin/bench-cost.js', import.meta.url));
// At 4 MiB a Parallel HTTP proxy, the cheapest mode, spent 4-9 ms on its share (measured); the
// bench reads each process's threads to the nanosecond, so a reading of 0 means it is broken.
const SIZE_MIB = 4;
const WARMUPS = 2; // the warm-up rounds are downloads too: counted, but left out of the medians
const RUN_TIMEOUT_MS = 90_000; // measured ~15 s on 2 busy cores (load 3); start-up under load is the slow part

describe('bench:cost (loopback, smoke)', function () {
  this.timeout(RUN_TIMEOUT_MS + 10_000);
  /** @type {any} */
  let out;
  /** @type {string} */
  let table;
  let cleanup = () => {};

  before(async function () {
    if (!existsSync('/proc/self/task')) skipOrFail(this, 'no /proc/<pid>/task (Linux only): the bench reads each process\'s CPU there');
    ({ table, out, cleanup } = await runBenchJson(BENCH, ['--size-mb', String(SIZE_MIB), '--runs', '1', '--warmup', String(WARMUPS)], { timeoutMs: RUN_TIMEOUT_MS, prefix: 'mutp-bench-cost-test-' }));
  });
  after(() => cleanup());

  it('gives every mode a verified download with the proxies\' and the client\'s CPU above 0', () => {
    for (const mode of MODES) {
      const rows = out.downloads.filter((/** @type {any} */ r) => r.mode === mode && r.phase === 'measured');
      assert.equal(rows.length, 1, mode);
      const r = rows[0];
      assert.equal(r.verified, true, `${mode}: ${r.excluded}`);
      assert.equal(r.netBytes, SIZE_MIB * 2 ** 20, mode);
      assert.ok(r.goodputMBps > 0, `${mode} goodput ${r.goodputMBps}`);
      assert.ok(r.proxyCpuS > 0 && r.proxyCpuMsPerMB > 0, `${mode}: proxies' CPU ${r.proxyCpuS} s`);
      assert.equal(r.proxyCpuEachS.length, 4, mode);
      assert.ok(r.clientCpuS > 0 && r.clientCpuMsPerMB > 0, `${mode}: client CPU ${r.clientCpuS} s`);
      assert.ok(r.clientCallCpuS > 0, `${mode}: the agent's own count ${r.clientCallCpuS} s`);
    }
    assert.equal(out.downloads.filter((/** @type {any} */ r) => r.phase === 'warmup').length, WARMUPS * MODES.length);
  });

  it('prints the table with every mode, the targets and the load', () => {
    for (const name of ['Range-split HTTP', 'Parallel HTTP', 'Uncoded MUTP', 'Coded MUTP']) assert.match(table, new RegExp(`^${name}\\s+1/1`, 'm'));
    assert.match(table, /Coded MUTP goodput ≥ 60 MB\/s at normalized ≥ 0\.95 .* (met|missed)$/m);
    assert.match(table, /1-min load average/);
    assert.match(table, new RegExp(`after ${WARMUPS} warm-up downloads per mode`));
    assert.equal(out.summary.perMode.find((/** @type {any} */ m) => m.mode === 'range-http').ratio.proxyCpu, 1);
  });
});
