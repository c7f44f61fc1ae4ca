import assert from 'node:assert/strict';
import { backoffDelayMs } from '@mutp/common/backoff';

describe('backoff (@mutp/common/backoff)', () => {
  it('doubles from the base up to the ceiling, jittered into [half, full)', () => {
    const opts = { baseMs: 500, maxMs: 30_000 };
    const low = [0, 1, 2, 6, 7, 100].map((a) => backoffDelayMs(a, { ...opts, random: () => 0 }));
    assert.deepEqual(low, [250, 500, 1000, 15_000, 15_000, 15_000]);
    const high = [0, 1, 6, 100].map((a) => backoffDelayMs(a, { ...opts, random: () => 0.999999 }));
    assert.deepEqual(high, [500, 1000, 30_000, 30_000]);
    assert.equal(backoffDelayMs(-3, { ...opts, random: () => 0 }), 250);
  });
});
