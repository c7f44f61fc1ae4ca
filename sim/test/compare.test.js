// sim:compare reads what the campaign ran: its delay and its proxies' SCTP max burst (meta.json).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCampaign, newConnectionCount, connectionStart, tcpStart, proxyStarts, compareCampaign } from '../src/compare.js';
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

  it('takes the proxies\' SCTP sender from meta.json (its field, else the build summaries); a campaign that does not say ran usrsctp\'s', () => {
    assert.equal(readCampaign(campaignDir({ sctpSender: 'loss-tolerant' })).sctpSender, 'loss-tolerant');
    assert.equal(readCampaign(campaignDir({ sctpSender: 'usrsctp' })).sctpSender, 'usrsctp');
    const tuned = 'tuned (libdatachannel 0.23.2, SCTP maxBurst off, send buffer 131072 B, loss-tolerant sender: random loss does not cut its window)';
    assert.equal(readCampaign(campaignDir({ rtcBuilds: [tuned] })).sctpSender, 'loss-tolerant');
    assert.equal(readCampaign(campaignDir({ rtcBuilds: [tuned, 'stock (libdatachannel 0.23.2, SCTP maxBurst 10)'] })).sctpSender, 'usrsctp', 'a mixed fleet: not all tolerant');
    assert.equal(readCampaign(campaignDir({ rtcBuilds: ['tuned (libdatachannel 0.23.2, SCTP maxBurst off, send buffer 131072 B)'] })).sctpSender, 'usrsctp');
    assert.equal(readCampaign(campaignDir(null)).sctpSender, 'usrsctp');
    assert.equal(readCampaign(campaignDir({ tcpCongestion: 'bbr' })).tcpCc, 'bbr');
    assert.equal(readCampaign(campaignDir({})).tcpCc, 'cubic');
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
    assert.equal(newConnectionCount(r, 'recorded', 4), 2);
    assert.equal(newConnectionCount({ ...r, connectionsOpened: 0 }, 'recorded', 4), 0);
    assert.equal(newConnectionCount(/** @type {any} */ ({}), 'recorded', 4), 0, 'an older record counts as kept');
    assert.equal(newConnectionCount({ ...r, connectionsOpened: 9 }, 'recorded', 4), 4);
    assert.equal(newConnectionCount({ ...r, connectionsOpened: 0 }, 'new', 4), 4);
    assert.equal(newConnectionCount(r, 'kept', 4), 0);
  });

  it('a download with some sources on new connections starts those new and the others kept, spread over the links', () => {
    const model = { startCwnd: 10, pathKept: true };
    assert.deepEqual(connectionStart(4, 0, 0, model), { kept: true });
    assert.deepEqual(connectionStart(4, 4, 0, model), { kept: true, startCwnd: 10 });
    assert.deepEqual(connectionStart(4, 2, 0, { startCwnd: 10, pathKept: false }),
      { kept: [false, false, true, true], startCwnd: [10, 10, Infinity, Infinity] });
    assert.deepEqual(connectionStart(4, 1, 5, model).startCwnd, [Infinity, 10, Infinity, Infinity], 'the 6th download: source 1 is the new one');
  });

  it('an HTTP download that opened new TCP connections pays their handshakes; one that does not say, none', () => {
    const r = /** @type {any} */ ({ mode: 'range-http', tcpConnectionsOpened: 2 });
    assert.deepEqual(tcpStart(r, 4, 1), { newTcp: [false, true, true, false] });
    assert.deepEqual(tcpStart({ ...r, tcpConnectionsOpened: 7 }, 4, 0), { newTcp: [true, true, true, true] });
    assert.deepEqual(tcpStart({ ...r, tcpConnectionsOpened: null }, 4, 0), {});
    assert.deepEqual(tcpStart({ ...r, tcpConnectionsOpened: 0 }, 4, 0), {});
  });

  it('a download with one source on a new connection is simulated as that: not as all kept, not as all new', async () => {
    const rec = { key: '2x896|coded', composition: '2x896', mode: 'coded', window: 240, generationSize: 24, lossPct: 0, sizeBin: '1-2MB', ok: true, netBytes: 1_500_000, goodputBps: 1, connectionsOpened: 1 };
    const sim = async (/** @type {'recorded' | 'new' | 'kept'} */ how) => (await compareCampaign([/** @type {any} */ (rec)],
      { delayMs: 25, perBox: 1, maxBurst: 0, connections: how, newConnections: { startCwnd: 10, pathKept: false } }))[0].simGoodputBps;
    const [mixed, kept, fresh] = [await sim('recorded'), await sim('kept'), await sim('new')];
    assert.notEqual(mixed, kept);
    assert.notEqual(mixed, fresh);
  });

  it('each source starts when its proxy recorded its first datagram; none recorded, or --proxy-start zero: at once', () => {
    const r = /** @type {any} */ ({ proxyStartMs: [12.5, null, 0, 40] });
    assert.deepEqual(proxyStarts(r, 4, 'recorded'), [12.5, 0, 0, 40]);
    assert.deepEqual(proxyStarts(r, 4, 'zero'), [0, 0, 0, 0]);
    assert.deepEqual(proxyStarts(/** @type {any} */ ({}), 2, 'recorded'), [0, 0]);
  });

  it('a download whose proxies started at different times (origin fetches) is simulated as that: slower than all at once', async () => {
    const rec = { key: '6x896|coded', composition: '6x896', mode: 'coded', window: 240, generationSize: 24, lossPct: 0, sizeBin: '1-2MB', ok: true, netBytes: 1_500_000, goodputBps: 1, proxyStartMs: [5, 10, 20, 25, 30, 45] };
    const sim = async (/** @type {'recorded' | 'zero'} */ how) => (await compareCampaign([/** @type {any} */ (rec)],
      { delayMs: 25, perBox: 1, maxBurst: 0, connections: 'kept', proxyStart: how }))[0].simGoodputBps;
    const [staggered, atOnce] = [await sim('recorded'), await sim('zero')];
    // the mean start alone (22.5 ms of ~400) would cost ~5%: the window waits for the latest
    assert.ok(staggered < 0.9 * atOnce, `staggered starts ${staggered} vs all at once ${atOnce}`);
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
