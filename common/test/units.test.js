import assert from 'node:assert/strict';
import { formatKiBps, parseByteSize, parseRate, parseRateMix } from '@mutp/common/units';

describe('units (@mutp/common/units)', () => {
  it('reads one vocabulary: KB/MB/GB decimal, KiB/MiB/GiB binary, bits spelled "bit", any case', () => {
    const table = /** @type {[string, number][]} */ ([
      ['1000', 1000], ['1000B', 1000], ['2kb', 2000], ['2KB', 2000], ['1.5MB', 1_500_000], ['1.5mb', 1_500_000],
      ['1GB', 1e9], ['1KiB', 1024], ['896kib', 917504], ['64MiB', 67108864], ['1GiB', 2 ** 30],
    ]);
    for (const [text, bytes] of table) {
      assert.equal(parseByteSize(text), bytes, text);
      assert.equal(parseRate(`${text}/s`), bytes, `${text}/s`);
    }
    assert.equal(parseRate('7Mbit'), 875_000);
    assert.equal(parseRate('7mbit/s'), 875_000);
    assert.equal(parseRate('8Kibit'), 1024);
    assert.equal(parseRate('1bit'), 0.125);
    assert.equal(parseByteSize(4096), 4096);
  });

  it('refuses what is not a size or rate, with the caller\'s code', () => {
    for (const bad of ['', 'abc', '-5', '5 parsecs', '1e9', '1.5XB', 'KiB', '8kbit']) {
      assert.throws(() => parseByteSize(bad), { code: 'ERR_BAD_SIZE' }, bad);
      assert.throws(() => parseByteSize(bad, { code: 'ERR_BAD_CONFIG' }), { code: 'ERR_BAD_CONFIG' }, bad);
    }
    for (const bad of ['', 'abc', '0', '-5KiB', '1e9', '7Mbits', '7Mbitps', 'x', Infinity]) assert.throws(() => parseRate(bad), { code: 'ERR_BAD_RATE' }, String(bad));
  });

  it('reads a rate mix in order, "," or "+" between groups', () => {
    assert.deepEqual(parseRateMix('2x896KiB+1x7Mbit, 1000'), [
      { text: '896KiB', bps: 917504 }, { text: '896KiB', bps: 917504 }, { text: '7Mbit', bps: 875_000 }, { text: '1000', bps: 1000 }]);
    for (const bad of ['', '0x896KiB', 'x896KiB', '4xfoo', '3x1KiB']) {
      assert.throws(() => parseRateMix(bad, { code: 'ERR_X_RATE', maxSources: 2 }), { code: 'ERR_X_RATE' }, bad);
    }
    assert.equal(formatKiBps(917504), '896 KiB/s');
  });
});
