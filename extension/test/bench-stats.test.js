// The bench's paired differences: each sample against the base sample of the same repeat.
import assert from 'node:assert/strict';
import { pairedDifference } from '../bench/stats.js';

describe('bench stats: paired differences', () => {
  it('pairs the i-th sample with the i-th base one, not the medians of each side', () => {
    // pairs differ by 50, 20 and 30 (median 30); the medians of each side, 420 − 400, by 20
    const base = [100, 400, 410];
    const xs = [150, 420, 440];
    assert.deepEqual(pairedDifference(xs, base), { pairs: 3, median: 30, q25: 20, q75: 50 });
  });

  it('counts only whole pairs, and a sample that is not a number in neither', () => {
    assert.deepEqual(pairedDifference([5, 7, 9], [1, 2]), { pairs: 2, median: 4, q25: 4, q75: 5 });
    assert.deepEqual(pairedDifference([5, NaN, 9], [1, 2, 3]), { pairs: 2, median: 4, q25: 4, q75: 6 });
    assert.equal(pairedDifference([], [1]), null);
    assert.equal(pairedDifference([1], []), null);
  });
});
