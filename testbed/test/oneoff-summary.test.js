// The one-off bench's summary: medians of the runs that succeeded, the rate and share of the
// links, and the targets.
import assert from 'node:assert/strict';
import { formatOneOffs, summarizeOneOffs } from '../src/oneoff/summary.js';

const LINKS_BPS = 4 * 896 * 1024; // 3584 KiB/s

describe('one-off bench summary', () => {
  it('medians of the successful runs per mode and size; the rate\'s share of the links against the target', () => {
    const runs = [
      { mode: 'range-http', kib: 1536, wallMs: 700, ok: true, firstPacketMs: 80 },
      { mode: 'range-http', kib: 1536, wallMs: 900, ok: true, firstPacketMs: 100 },
      { mode: 'range-http', kib: 1536, wallMs: 5000, ok: false, firstPacketMs: null },
      { mode: 'range-http', kib: 1536, wallMs: 800, ok: true, firstPacketMs: 90 },
      { mode: 'coded', kib: 8192, wallMs: 3200, ok: true, firstPacketMs: 330 },
      { mode: 'coded', kib: 8192, wallMs: 3300, ok: true, firstPacketMs: null },
      { mode: 'coded', kib: 100, wallMs: 300, ok: true, firstPacketMs: null },
    ];
    const [range, coded, small] = summarizeOneOffs(runs, LINKS_BPS);
    assert.deepEqual({ ...range, kibPerS: Math.round(/** @type {number} */ (range.kibPerS)) },
      { mode: 'range-http', kib: 1536, runs: 4, failed: 1, medianMs: 800, kibPerS: 1920, share: 1920 / 3584, firstPacketMs: 90, target: 0.5, met: true });
    assert.equal(coded.medianMs, 3250);
    assert.equal(coded.firstPacketMs, 330);
    assert.equal(coded.target, 0.85);
    assert.equal(coded.met, false, `${coded.share} of the links`);
    assert.equal(small.target, null);
    assert.equal(small.met, null);
    const table = formatOneOffs([range, coded, small]);
    assert.match(table, /range-http\s+1536\s+4\s+1\s+800\s+1920\s+0\.536\s+90\s+≥ 0\.5: met/);
    assert.match(table, /coded\s+8192\s+2\s+0\s+3250\s+2521\s+0\.703\s+330\s+≥ 0\.85: missed/);
    assert.match(table, /\(none\)/);
  });

  it('a cell whose every run failed has no median and no verdict', () => {
    const [row] = summarizeOneOffs([{ mode: 'coded', kib: 1536, wallMs: 9000, ok: false, firstPacketMs: null }], LINKS_BPS);
    assert.deepEqual([row.failed, row.medianMs, row.share, row.met], [1, null, null, null]);
  });
});
