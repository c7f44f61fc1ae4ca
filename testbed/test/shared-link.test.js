// Pure parts of the shared-bottleneck option: the cap's options, the bfifo's counters, the cross
// host's place in the topology, and the summary over the downloads' time spans.
import assert from 'node:assert/strict';
import { parseClientCap, queueLimitBytes, parseBfifo, DEFAULT_CLIENT_QUEUE_MS } from '../src/bottleneck.js';
import { summarizeSharedLink, formatSharedLink } from '../src/shared-link.js';
import { planTopology, allNodes } from '../src/topology.js';

const MIB = 1024 * 1024;

describe('testbed: client cap options', () => {
  it('reads the cap as --rates does, with the default queue bound', () => {
    assert.deepEqual(parseClientCap('2MiB', undefined), { rateBps: 2 * MIB, queueMs: DEFAULT_CLIENT_QUEUE_MS });
    assert.deepEqual(parseClientCap('2048KiB', '250'), { rateBps: 2 * MIB, queueMs: 250 });
    assert.equal(parseClientCap(undefined, undefined), null);
  });
  it('refuses a bad queue bound, or one without a cap, with ERR_BAD_OPTION', () => {
    for (const q of ['0', '1.5', 'x', '10001']) assert.throws(() => parseClientCap('2MiB', q), { code: 'ERR_BAD_OPTION' });
    assert.throws(() => parseClientCap(undefined, '100'), { code: 'ERR_BAD_OPTION' });
    assert.throws(() => parseClientCap('2Mfoo', undefined), { code: 'ERR_BAD_RATE' });
  });
  it('bounds the queue at queueMs of the cap, never below a few frames', () => {
    assert.equal(queueLimitBytes({ rateBps: 2 * MIB, queueMs: 100 }), 209715);
    assert.equal(queueLimitBytes({ rateBps: 1000, queueMs: 1 }), 15140);
  });
});

describe('testbed: bottleneck counters', () => {
  it('reads the bfifo out of tc -s -j qdisc show', () => {
    const out = '[{"kind":"htb","handle":"1:","backlog":0,"drops":0,"bytes":9},{"kind":"bfifo","handle":"10:","parent":"1:10","bytes":6548794,"packets":4335,"drops":16,"backlog":3028,"qlen":2}]';
    assert.deepEqual(parseBfifo(out), { backlogBytes: 3028, drops: 16, sentBytes: 6548794 });
    assert.equal(parseBfifo('[{"kind":"noqueue"}]'), null);
    assert.equal(parseBfifo('Error: Cannot find device'), null);
  });
});

describe('testbed: cross host', () => {
  it('has an address of its own and joins allNodes only when asked for', () => {
    const t = planTopology({ tag: 'x1', subnet: '10.219.3', proxyCount: 2, cross: true });
    assert.equal(t.cross?.ip, '10.219.3.5');
    assert.equal(t.cross?.ns, 'mtb-x1-cross');
    assert.ok(allNodes(t).includes(/** @type {any} */ (t.cross)));
    assert.equal(planTopology({ tag: 'x1', subnet: '10.219.3', proxyCount: 2 }).cross, null);
  });
});

describe('testbed: shared-link summary', () => {
  const cap = 2 * MIB;
  const q = (/** @type {number} */ t, /** @type {number} */ sent, /** @type {number} */ drops) => ({ t, backlogBytes: 0, drops, sentBytes: sent });
  // two downloads of 1 s each with a gap between them, where TCP had the link alone
  const windows = [
    { from: { t: 0, crossBytes: 0, queue: q(0, 0, 0) }, to: { t: 1000, crossBytes: MIB, queue: q(1000, cap, 5) }, netBytes: 0.9 * MIB },
    { from: { t: 5000, crossBytes: 9 * MIB, queue: q(5000, 5 * cap, 5) }, to: { t: 6000, crossBytes: 10 * MIB, queue: q(6000, 6 * cap, 7) }, netBytes: 0.9 * MIB },
  ];
  const samples = [[500, 100], [3000, 999], [5500, 50], [5600, 200], [5700, 300]].map(([t, ms]) => ({ t, backlogBytes: (ms / 1000) * cap, drops: 0, sentBytes: 0 }));
  const s = summarizeSharedLink({ bottleneck: { rateBps: cap, queueMs: 100, limitBytes: 209715, dev: 'v-client' }, windows, samples, crossCongestion: 'cubic' });

  it('counts only the downloads\' time spans', () => {
    assert.equal(s.durationMs, 2000);
    assert.equal(s.cross?.bytes, 2 * MIB);
    assert.equal(s.cross?.share, 0.5);
    assert.equal(s.delivered.share, 0.45);
    assert.equal(s.linkBusy, 1);
    assert.equal(s.drops, 7);
  });
  it('turns the backlog into ms at the cap, samples outside the downloads left out', () => {
    assert.equal(s.queueDelayMs.samples, 4);
    assert.equal(s.queueDelayMs.median, 150);
    assert.equal(s.queueDelayMs.max, 300);
    assert.match(formatSharedLink(s), /cross TCP \(cubic\): 1024 KiB\/s of payload, 50\.0% of the cap/);
  });
  it('says so when there was no cross traffic', () => {
    const alone = summarizeSharedLink({ bottleneck: { rateBps: cap, queueMs: 100, limitBytes: 209715, dev: 'v-client' },
      windows: windows.map((w) => ({ ...w, from: { ...w.from, crossBytes: null }, to: { ...w.to, crossBytes: null } })), samples });
    assert.equal(alone.cross, null);
    assert.match(formatSharedLink(alone), /cross TCP: none/);
  });
});
