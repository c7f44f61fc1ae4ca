import assert from 'node:assert/strict';
import { parseRate, parseRates, parseSize } from '../src/units.js';
import { EventQueue } from '../src/event-queue.js';
import { createPrng } from '../src/prng.js';

describe('sim units', () => {
  it('parses rates: KiB is 1024 bytes/s, Mbit is 125000 bytes/s', () => {
    assert.equal(parseRate('896KiB'), 896 * 1024);
    assert.equal(parseRate('7Mbit'), 875_000);
    assert.equal(parseRate('1.5MB/s'), 1_500_000);
    assert.deepEqual(parseRates('2x896KiB,1x1792KiB'), [917504, 917504, 1835008]);
    assert.deepEqual(parseRates('1x1792KiB+3x896KiB').length, 4);
    assert.equal(parseRate('896kib'), 896 * 1024, 'units are case-insensitive');
  });

  it('parses sizes: MB is decimal, MiB binary', () => {
    assert.equal(parseSize('1.5MB'), 1_500_000);
    assert.equal(parseSize('2MiB'), 2 * 1024 * 1024);
    assert.equal(parseSize('1'), 1);
  });

  it('refuses bad values with ERR_SIM_BAD_INPUT', () => {
    for (const bad of ['4xfoo', 'x896KiB', '0x896KiB', '0', '-5KiB', '', '896KiBit/s/s']) {
      assert.throws(() => parseRates(bad), { code: 'ERR_SIM_BAD_INPUT' }, bad);
    }
    for (const bad of ['1.5XB', 'abc', '-1']) assert.throws(() => parseSize(bad), { code: 'ERR_SIM_BAD_INPUT' }, bad);
  });
});

describe('event queue and prng', () => {
  it('runs events in time order, ties in insertion order', () => {
    const q = new EventQueue();
    const seen = [];
    const times = [5, 1, 3, 3, 0, 9, 1, 7, 3];
    times.forEach((t, k) => q.at(t, () => seen.push([q.now, k])));
    while (q.step());
    assert.deepEqual(seen, [[0, 4], [1, 1], [1, 6], [3, 2], [3, 3], [3, 8], [5, 0], [7, 7], [9, 5]]);
  });

  it('gives the same sequence for the same seed and another for another seed', () => {
    const a = createPrng(7);
    const b = createPrng(7);
    const c = createPrng(8);
    const xa = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(xa, Array.from({ length: 5 }, () => b.next()));
    assert.notDeepEqual(xa, Array.from({ length: 5 }, () => c.next()));
    assert.ok(xa.every((x) => x >= 0 && x < 1));
  });
});
