import assert from 'node:assert/strict';
import { createCounts } from '../src/counts.js';

describe('common: counts per key', () => {
  it('counts up and down per key, forgets a key at zero and never goes below it', () => {
    const c = createCounts();
    c.add('a');
    c.add('a');
    c.add('b');
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [2, 1, 0]);
    c.remove('a');
    c.remove('b');
    c.remove('b');
    assert.deepEqual([c.get('a'), c.get('b')], [1, 0]);
    c.add('b');
    assert.equal(c.get('b'), 1, 'a removal below zero left no debt');
  });
});
