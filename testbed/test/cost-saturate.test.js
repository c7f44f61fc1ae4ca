// Pure parts of `npm run bench:cost -- --saturate`: a step's throughput and the proxy's MB per
// CPU-second, byte-exact downloads only, and when the doubling stops.
import assert from 'node:assert/strict';
import { saturateStep, saturated, formatSaturate, SATURATED_CORES } from '../src/cost/saturate-summary.js';

const SHA = 'f'.repeat(64);
const MB = 1e6;
/** @param {number} mb @param {object} [o] */
const ok = (mb, o = {}) => ({ stats: { netBytes: mb * MB, durationMs: 100, verified: false }, sha256: SHA, ...o }); // one proxy: no digest vote

describe('bench:cost --saturate: a step', () => {
  it('gives MB/s over the step and MB per proxy CPU-second, counting byte-exact downloads only', () => {
    const s = saturateStep({ mode: 'coded', agents: 2, expectedSha256: SHA, wallS: 2, proxyCpuS: 0.5, clientsCpuS: 3, loadavg1: 1, busyCores: 1.5,
      results: [ok(10), ok(10), ok(10, { sha256: 'x' }), { error: { code: 'ERR_TIMEOUT' }, stats: null }] });
    assert.equal(s.verified, 2);
    assert.deepEqual(s.excluded, ['wrong bytes', 'failed: ERR_TIMEOUT']);
    assert.equal(s.MBps, 10); // 20 MB in 2 s
    assert.equal(s.MBPerProxyCpuS, 40); // 20 MB over 0.5 CPU-s
    assert.equal(s.proxyCores, 0.25);
    assert.equal(s.clientsCores, 1.5);
  });
  it('does not divide by a proxy CPU reading of 0 or a process that is gone', () => {
    const base = { mode: 'parallel-http', agents: 1, expectedSha256: SHA, wallS: 1, clientsCpuS: null, loadavg1: 1, busyCores: 1, results: [ok(4)] };
    assert.equal(saturateStep({ ...base, proxyCpuS: 0 }).MBPerProxyCpuS, null);
    assert.equal(saturateStep({ ...base, proxyCpuS: null }).proxyCores, null);
  });
  it('stops the doubling once the proxy process used ~1 core', () => {
    const step = (/** @type {number} */ cpu) => saturateStep({ mode: 'coded', agents: 4, expectedSha256: SHA, wallS: 1, proxyCpuS: cpu, clientsCpuS: 1, loadavg1: 1, busyCores: 2, results: [ok(1)] });
    assert.equal(saturated(step(SATURATED_CORES)), true);
    assert.equal(saturated(step(SATURATED_CORES - 0.01)), false);
    assert.match(formatSaturate([step(1)], { sizeBytes: 8 * 2 ** 20, perAgent: 2, rtcBuild: 'stock', cores: 2 }), /Coded MUTP\s+4\s+1\/1\s+1\.0\s+1\.00\s+1\.0 .*proxy at ~1 core/);
  });
});
