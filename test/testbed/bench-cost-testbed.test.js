// `npm run bench:cost -- --testbed` end to end: the same run as on loopback, in the namespace
// testbed behind shaped links. Each mode gives a verified download whose every process's CPU was
// read (the proxies', the client's, Origo's and the origin's, from their own namespaces), and the
// table says where it ran and gives no loopback verdicts. Asserts no speed or cost.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { runBenchJson } from '@mutp/testkit/bench-run';

const BENCH = fileURLToPath(new URL('../../testbed/bin/bench-cost.js', import.meta.url));
const MODES = ['range-http', 'coded']; // the baseline and the mode the costs are about
const SIZE_MIB = 1; // ~0.3 s a download on 4×896 KiB/s
const RUN_TIMEOUT_MS = 150_000; // the testbed's start (~45 s on 2 busy cores) and 4 downloads

describe('bench:cost --testbed (network namespaces, smoke)', function () {
  this.timeout(RUN_TIMEOUT_MS + 10_000);
  /** @type {any} */
  let out;
  /** @type {string} */
  let table;
  let cleanup = () => {};

  before(async function () {
    requireOrSkip(this, { commands: ['ip', 'tc', 'iptables', 'clang'], root: true });
    ({ table, out, cleanup } = await runBenchJson(BENCH, ['--testbed', '--delay-ms', '5', '--modes', MODES.join(','), '--size-mb', String(SIZE_MIB), '--runs', '1'],
      { timeoutMs: RUN_TIMEOUT_MS, prefix: 'mtb-bench-cost-' }));
  });
  after(() => cleanup());

  it('gives every mode a verified download with every process\'s CPU read', () => {
    for (const mode of MODES) {
      const r = out.downloads.find((/** @type {any} */ d) => d.mode === mode && d.phase === 'measured');
      assert.equal(r?.verified, true, `${mode}: ${r?.excluded}`);
      assert.equal(r.netBytes, SIZE_MIB * 2 ** 20, mode);
      assert.equal(r.proxyCpuEachS.length, 4, mode);
      assert.ok(r.proxyCpuS > 0 && r.clientCpuS > 0, `${mode}: proxies ${r.proxyCpuS} s, client ${r.clientCpuS} s`);
      assert.ok(r.origoCpuS !== null && r.originCpuS !== null, `${mode}: Origo's and the origin's CPU were read`);
    }
  });

  it('says it ran on the testbed and leaves out the loopback targets\' verdicts', () => {
    assert.match(table, /on the namespace testbed \(4x896KiB, RTT 10 ms\)/);
    assert.match(table, /targets: on loopback only/);
    assert.doesNotMatch(table, /(met|missed)$/m);
  });
});
