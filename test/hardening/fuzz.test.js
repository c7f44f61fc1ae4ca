// Every network-facing parser and handler runs under the fuzzer for a fixed number
// of deterministic iterations (more with `npm run fuzz -- --iterations N`).
import assert from 'node:assert/strict';
import { runTarget } from '../../fuzz/lib/harness.js';
import { mutateBytes } from '../../fuzz/lib/mutate.js';
import { TARGETS } from '../../fuzz/targets/index.js';

const RSS_GROWTH_BOUND_MB = 64; // per burst after warm-up; stored records and JIT code grow a little, a leak per input grows far more
const FUZZ_SEED = 1; // fixed: CI runs the same inputs every time

describe('hardening: fuzz targets (fixed iterations)', function () {
  this.timeout(120_000);
  for (const target of TARGETS) {
    it(`${target.name}: ${target.ciIterations} inputs, no crash, no hang, bounded memory — ${target.what}`, async () => {
      const r = await runTarget(target, { seed: FUZZ_SEED });
      assert.deepEqual(r.failures, [], `${target.name} failures`);
      assert.ok(r.rssGrowthMB < RSS_GROWTH_BOUND_MB, `RSS grew ${r.rssGrowthMB.toFixed(1)} MB over the burst`);
    });
  }

  it('the harness reports a crashing check, a hang and a dead server (it can fail)', async () => {
    let calls = 0;
    /** @type {import('../../fuzz/lib/harness.js').FuzzTarget} */
    const broken = {
      name: 'wire', what: 'self-test', ciIterations: 60, timeoutMs: 50,
      async setup() { return {}; },
      mutate: mutateBytes,
      async run() {
        calls++;
        if (calls === 3) throw new Error('boom');
        if (calls === 5) await new Promise((r) => setTimeout(r, 200)); // longer than timeoutMs
      },
      async alive() { if (calls >= 50) throw new Error('gone'); },
      async teardown() {},
    };
    const r = await runTarget(broken);
    assert.deepEqual(r.failures.map((f) => [f.iteration, f.code]), [[2, 'ERR_FUZZ_CHECK'], [4, 'ERR_FUZZ_HANG'], [49, 'ERR_FUZZ_DEAD'], [60, 'ERR_FUZZ_DEAD']]);
  });
});
