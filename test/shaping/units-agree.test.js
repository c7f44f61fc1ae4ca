// shaping/shape (bash) and @mutp/common/units read rates the same way: the proxy's UPLOAD_RATE
// goes to both. --dry-run only prints the tc commands, so no namespace or root is needed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseRate } from '@mutp/common/units';

const SHAPE = fileURLToPath(new URL('../../shaping/shape', import.meta.url));
const BITS_PER_BYTE = 8;
const MIN_SHAPED_BPS = 1000; // shaping/shape refuses rates below 1 KB/s
const TABLE = ['896KiB', '1792KiB/s', '896kib', '1.5MB', '1.5mb/s', '7Mbit', '7mbit', '7Mbitps', '1000', '1000B',
  '2KB', '3.5MiB', '1GB', '10Kibit', '2Mibit', '1Gbit', '64kbit', '896', '999B', '7Mb', '7XB', 'KiB', '-5KiB', '1e6'];

/** bits per second as shaping/shape computes them, or null when it refuses. @param {string} rate */
function shapeBits(rate) {
  const r = spawnSync(SHAPE, ['--dev', 'lo', '--upload', rate, '--dry-run'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const m = /rate (\d+)bit/.exec(r.stdout);
  assert.ok(m, `no rate in: ${r.stdout}`);
  return Number(m[1]);
}

/** bits per second by @mutp/common/units, or null when it refuses (or shaping would). @param {string} rate */
function unitsBits(rate) {
  let bps;
  try { bps = parseRate(rate); } catch (err) { assert.equal(/** @type {any} */ (err).code, 'ERR_BAD_RATE'); return null; }
  return bps >= MIN_SHAPED_BPS ? Math.trunc(bps * BITS_PER_BYTE) : null;
}

describe('rate units: shaping/shape agrees with @mutp/common/units', () => {
  it('gives the same bits per second, or refuses the same inputs', () => {
    const rows = TABLE.map((rate) => [rate, shapeBits(rate), unitsBits(rate)]);
    assert.deepEqual(rows.filter(([, a, b]) => a !== b), [], 'rate, shape, units');
    assert.ok(rows.filter(([, a]) => a !== null).length >= 15, 'most rows are accepted rates');
  });
});
