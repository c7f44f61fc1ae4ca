// sim:compare reads what the campaign ran: its delay and its proxies' SCTP max burst (meta.json).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCampaign } from '../src/compare.js';

/** @param {object | null} meta */
function campaignDir(meta) {
  const dir = mkdtempSync(join(tmpdir(), 'sim-compare-'));
  writeFileSync(join(dir, 'results.jsonl'), `${JSON.stringify({ key: 'k', ok: true })}\n`);
  if (meta) writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
  return dir;
}

describe('sim: reading a campaign for sim:compare', () => {
  it('takes the proxies\' SCTP max burst from meta.json: off (< 0) is 0 here, a count stays', () => {
    assert.deepEqual(readCampaign(campaignDir({ delayMs: 25, sctpMaxBurst: -1 })).maxBurst, 0);
    assert.deepEqual(readCampaign(campaignDir({ delayMs: 25, sctpMaxBurst: 10 })).maxBurst, 10);
    assert.equal(readCampaign(campaignDir({ delayMs: 25 })).delayMs, 25);
  });

  it('a campaign that did not record it says null; one without meta.json ran without delay', () => {
    assert.equal(readCampaign(campaignDir({ delayMs: 25, sctpMaxBurst: null })).maxBurst, null);
    const bare = readCampaign(campaignDir(null));
    assert.deepEqual([bare.delayMs, bare.maxBurst, bare.records.length], [0, null, 1]);
  });
});
