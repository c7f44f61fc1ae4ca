// sim:compare reads what the campaign ran: its delay and its proxies' SCTP max burst (meta.json).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCampaign, startedOnNewConnections, compareCampaign } from '../src/compare.js';
import { SCTP_INITIAL_CWND_PACKETS } from '../src/sctp.js';

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

  it('models a download on new connections as the campaign ran them: its initial cwnd, the proxies\' path cache', () => {
    assert.deepEqual(readCampaign(campaignDir({ delayMs: 25, sctpInitialCwnd: 96, pathCache: true })).newConnections, { startCwnd: 96, pathKept: true });
    assert.deepEqual(readCampaign(campaignDir({ delayMs: 25, sctpInitialCwnd: null })).newConnections, { startCwnd: SCTP_INITIAL_CWND_PACKETS, pathKept: false });
    const r = /** @type {any} */ ({ connectionsOpened: 2 });
    assert.equal(startedOnNewConnections(r, 'recorded'), true);
    assert.equal(startedOnNewConnections({ ...r, connectionsOpened: 0 }, 'recorded'), false);
    assert.equal(startedOnNewConnections(/** @type {any} */ ({}), 'recorded'), false, 'an older record counts as kept');
    assert.equal(startedOnNewConnections({ ...r, connectionsOpened: 0 }, 'new'), true);
    assert.equal(startedOnNewConnections(r, 'kept'), false);
  });

  it('a download on new connections without a kept path is simulated slower than one on kept connections', async () => {
    const rec = { key: '4x896|coded', composition: '4x896', mode: 'coded', window: 240, generationSize: 24, lossPct: 0, sizeBin: '1-2MB', ok: true, netBytes: 1_500_000, goodputBps: 1 };
    const run = async (/** @type {'new' | 'kept'} */ how, /** @type {any} */ newConnections) => (await compareCampaign([/** @type {any} */ (rec)],
      { delayMs: 25, perBox: 1, maxBurst: 0, connections: how, newConnections }))[0].simGoodputBps;
    const kept = await run('kept', undefined);
    const cold = await run('new', { startCwnd: 10, pathKept: false });
    const cached = await run('new', { startCwnd: 10, pathKept: true });
    assert.ok(cold < 0.9 * kept, `new ${cold} vs kept ${kept}`);
    assert.ok(cached > 1.03 * cold && cached < kept, `new with the path cached ${cached}: between new ${cold} and kept ${kept}`);
  });
});
