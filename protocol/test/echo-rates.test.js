import assert from 'node:assert/strict';
import { createEchoRates, ECHO_RATE_SPAN_MS } from '../index.js';

describe("echo rates (the 'share' scheduler's source weights)", () => {
  it('an early echo snapshot is no rate: sources not yet seen weigh as much as the others for one round trip', () => {
    const r = createEchoRates(4);
    const w = new Float64Array(4);
    r.update([47, 0, 0, 0], 100, 0, w);
    assert.ok(Math.abs(w[0] - w[1]) < 1e-9 && Math.abs(w[1] - w[3]) < 1e-9, `equal while nothing is measured: ${w}`);
    r.update([60, 5, 0, 0], 100 + ECHO_RATE_SPAN_MS / 2, 50, w);
    assert.ok(Math.abs(w[0] - w[2]) < 1e-9, `still equal within the span and the grace: ${w}`);
  });

  it('weighs each source by its echo slope, not by its total', () => {
    const r = createEchoRates(2);
    const w = new Float64Array(2);
    r.update([50, 10], 0, 50, w); // source 0 started earlier: more packets, same rate
    r.update([90, 50], 40, 50, w); // both +40 packets in 40 ms
    assert.ok(Math.abs(w[0] - w[1]) < 1e-6, `same slope, same weight: ${w}`);
    r.update([170, 90], 80, 50, w); // source 0: +120 in 80 ms, source 1: +80
    assert.ok(Math.abs(w[0] / w[1] - 1.5) < 0.01, `rates 1.5 : 1 give weights 1.5 : 1: ${w}`);
  });

  it('after the grace period a source never seen weighs (almost) nothing: its share goes to the others', () => {
    const r = createEchoRates(3);
    const w = new Float64Array(3);
    r.update([10, 10, 0], 0, 50, w);
    r.update([50, 50, 0], 40, 50, w);
    assert.ok(w[2] > 0.5 * w[0], `within one RTT of the first feedback: presumed alike: ${w}`);
    r.update([70, 70, 0], 60, 50, w);
    assert.ok(w[2] < 0.01 * w[0], `silent past the grace: ${w}`);
    assert.ok(w[2] > 0, 'weights stay positive (ratios stay finite)');
  });
});
