// Streamed metas (docs/protocol.md "Streamed meta"): a coded proxy sends its layout as soon as it
// knows the object's size and each generation's checksum once it has the generation's bytes, and
// sends those generations while the rest still comes from the origin. The client votes on each
// checksum as it comes and holds a generation decoded before its checksum is decided.
import assert from 'node:assert/strict';
import { runPiped } from './piped-download.js';
import {
  createDownloadController, createMetaAssembler, createMetaVote, createSender, checksumOf, decodeMessage, encodeMessage, SLICE_GAP_RESEND_MS,
} from '../index.js';

/** @param {any} r */
function assertByteExact(r) {
  assert.equal(r.end?.type, 'complete', `ended with ${JSON.stringify(r.end && { type: r.end.type, code: r.end.code, message: r.end.message })}`);
  assert.ok(Buffer.from(r.end.data).equals(Buffer.from(r.data)), 'data differs');
  assert.ok(Buffer.from(r.delivered).equals(Buffer.from(r.data)), 'delivered chunks differ');
}

/** @param {any} r @param {string} type */
const actionsOf = (r, type) => r.actions.filter((/** @type {any} */ a) => a.type === type);

/** Flips every checksum of a meta slice: a proxy that lies about each generation. @param {any} m */
const lie = (m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);

// 400 kB from an origin that gives 16 KiB every 10 ms: ~250 ms for the whole object at each proxy
const SLOW_ORIGIN = { chunkBytes: 16_384, everyMs: 10 };
const SIZE = 400_000;
const ORIGIN_MS = Math.ceil(SIZE / SLOW_ORIGIN.chunkBytes) * SLOW_ORIGIN.everyMs - SLOW_ORIGIN.everyMs;

describe('streamed metas (coded)', () => {
  it('4 proxies send while their origin still sends: the first packet long before any proxy has the whole object; byte-exact', async () => {
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 4, stream: SLOW_ORIGIN });
    assertByteExact(r);
    // delay 25 ms each way: the request reaches the proxies at 25 ms, their last chunk comes ORIGIN_MS later
    assert.ok(r.c.firstPacketMs < 25 + 25 + 2 * SLOW_ORIGIN.everyMs, `first packet at ${r.c.firstPacketMs} ms`);
    assert.ok(25 + ORIGIN_MS > r.c.firstPacketMs + 150, 'the origin is slow enough for the test to mean something');
    assert.ok(r.proxies.every((p) => p.sent > 0 && p.streamed), 'every proxy asked for a streamed meta and served');
    assert.equal(actionsOf(r, 'drop').length, 0);
    assert.equal(r.c.receiver.held.size, 0);
  });

  it('a proxy that lies in every checksum it streams is outvoted (3 of 4) and named; byte-exact', async () => {
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 4, stream: SLOW_ORIGIN, faults: { 2: { tamperMeta: lie } } });
    assertByteExact(r);
    assert.deepEqual(actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]), [[2, 'ERR_INTEGRITY']]);
  });

  it('two proxies, one lying: every checksum is a tie, so the data decides and names the liar; byte-exact', async () => {
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 2, stream: SLOW_ORIGIN, faults: { 1: { tamperMeta: lie } } });
    assertByteExact(r);
    assert.deepEqual(actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]), [[1, 'ERR_INTEGRITY']]);
  });

  it('two proxies serving two copies of one size, each consistent: unresolved, nothing delivered, nobody named', async () => {
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 2, stream: SLOW_ORIGIN, faults: { 1: { otherObject: true } } });
    assert.equal(r.end?.type, 'fail');
    assert.equal(r.end.code, 'ERR_INTEGRITY_UNRESOLVED');
    assert.equal(r.deliveredBytes, 0);
    assert.deepEqual(actionsOf(r, 'drop').filter((/** @type {any} */ d) => d.code === 'ERR_INTEGRITY'), []);
  });

  it('a lost checksum slice: the generation waits decoded, the request is re-sent after SLICE_GAP_RESEND_MS, and the meta so far comes again', async () => {
    // two proxies: each checksum needs both, so proxy 1's lost slice of generation 3 holds that generation
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 2, stream: SLOW_ORIGIN, faults: { 1: { loseSlice: (first) => first === 3 } } });
    assertByteExact(r);
    assert.deepEqual([...r.proxies[1].lostSlices], [3]);
    assert.equal(r.proxies[0].requests, 1);
    assert.equal(r.proxies[1].requests, 2, 'one re-sent request');
    assert.equal(r.c.receiver.counts().integrityFailures, 0, 'the generation was held for its checksum, not discarded');
    const resent = actionsOf(r, 'send').filter((/** @type {any} */ a) => a.source === 1 && decodeMessage(a.bytes).msg?.type === 'request')[1];
    assert.ok(resent.t >= SLICE_GAP_RESEND_MS, `re-sent at ${resent.t} ms`);
    assert.equal(actionsOf(r, 'drop').length, 0);
  });

  it('the last checksum slice lost: the held generation names who lacks it, and that proxy is asked again (no later slice shows a gap)', async () => {
    // two proxies: each checksum needs both; proxy 1 loses the first sending of every slice from generation 14 on (the object has 16)
    const r = await runPiped({ mode: 'coded', size: SIZE, n: 2, stream: SLOW_ORIGIN, faults: { 1: { loseSlice: (first) => first >= 14 } } });
    assertByteExact(r);
    assert.ok(r.proxies[1].lostSlices.size > 0);
    assert.ok(r.proxies[1].requests >= 2, 'asked again');
    assert.equal(r.proxies[0].requests, 1, 'the proxy that lacks nothing is not asked again');
    assert.ok(r.end.t < 25 + ORIGIN_MS + 300, `ended at ${r.end.t} ms: waited for a timeout`);
    assert.equal(actionsOf(r, 'drop').length, 0);
  });

  it('a client that did not ask for a streamed meta drops a proxy that sends one', async () => {
    const c = await createDownloadController({ mode: 'coded', url: 'http://origin.test/x', sourceCount: 2, downloadId: 7, seeds: [1, 2] });
    const sent = c.connected(0, {}, 0);
    assert.equal(/** @type {any} */ (decodeMessage(/** @type {any} */ (sent[0]).bytes).msg)?.streamed, false, 'the request does not ask for one');
    const sender = await createSender({ mode: 'coded', data: new Uint8Array(50_000), streamed: true, downloadId: 7 });
    const acts = c.datagram(0, encodeMessage(sender.streamedMeta()), 1);
    assert.deepEqual(acts.filter((a) => a.type === 'drop').map((a) => /** @type {any} */ (a).code), ['ERR_META_MISMATCH']);
    sender.close();
  });

  it('an uncoded sender cannot be streamed (its scheduler picks any packet of the window)', async () => {
    await assert.rejects(createSender({ mode: 'uncoded', data: new Uint8Array(10), streamed: true }), { code: 'ERR_BAD_PARAMS' });
  });

  it('a streamed sender sends only generations it has whole, hashes each as it completes, and owes checksums until the last', async () => {
    const data = new Uint8Array(100_000).map((_, i) => i * 7);
    const s = await createSender({ mode: 'coded', data, streamed: true, params: { generationSize: 10, payloadSize: 1000 } });
    assert.equal(s.nextPacket(0), null, 'nothing before any byte');
    assert.deepEqual(s.haveBytes(9_999), [], 'no generation whole yet');
    assert.equal(s.nextPacket(0), null);
    assert.equal(s.owesChecksums(), true);
    const metas = s.haveBytes(25_000);
    assert.deepEqual(metas.map((m) => [m.checksums?.first, m.checksums?.values.length]), [[0, 16]]);
    assert.deepEqual(metas[0].checksums?.values, new Uint8Array([...checksumOf(data.subarray(0, 10_000)), ...checksumOf(data.subarray(10_000, 20_000))]));
    for (let i = 0; i < 40; i++) {
      const p = /** @type {any} */ (s.nextPacket(0));
      if (!p) break;
      assert.ok(p.generation < 2, `generation ${p.generation} sent before its bytes came`);
    }
    assert.deepEqual(s.haveBytes(100_000).map((m) => m.checksums?.first), [2]);
    assert.equal(s.owesChecksums(), false, 'every unit hashed: its part can end');
    // a re-sent request gets the layout and every checksum so far
    assert.deepEqual(s.metaMessages().map((m) => [m.streamed, m.checksums?.first ?? null]), [[true, null], [true, 0]]);
    s.close();
  });
});

describe('the meta vote over streamed checksums', () => {
  /** A streamed meta of 3 units from `source`, with the checksums of `units` (value per unit). */
  function entry(/** @type {number} */ source, /** @type {Record<number, number>} */ units) {
    const layout = { type: 'meta', downloadId: 1, mode: 'coded', totalSize: 3000, payloadSize: 1000, packetCount: 3, generationSize: 1, generationCount: 3, window: 3, feedbackEvery: 1, streamed: true };
    const asm = createMetaAssembler(layout);
    asm.add(layout);
    for (const [u, v] of Object.entries(units)) asm.add({ ...layout, checksums: { algo: 1, entryBytes: 8, first: Number(u), values: new Uint8Array(8).fill(v) } });
    return { asm, e: { source, meta: asm.meta, table: asm.table, has: asm.has } };
  }

  it('a unit is open (verify: undefined) until a strict majority gave its checksum; a dropped voter lowers the majority', () => {
    const a = entry(0, { 0: 1 });
    const b = entry(1, { 0: 1, 1: 5 });
    const c = entry(2, {});
    const vote = createMetaVote([a.e, b.e, c.e]);
    const unit = (/** @type {number} */ v) => new Uint8Array(1000).fill(v);
    assert.equal(vote.decided(0), true, '2 of 3 agree');
    assert.equal(vote.decided(1), false, '1 of 3');
    assert.equal(vote.verify(1, unit(9)), undefined);
    assert.deepEqual(vote.lacking(1), [0, 2]);
    // the checksums a test can make: entries equal to the unit bytes' own hash
    a.asm.add({ ...a.e.meta, checksums: { algo: 1, entryBytes: 8, first: 2, values: checksumOf(unit(2)) } });
    vote.heard(0, 2, 3);
    assert.equal(vote.decided(2), false, '1 of 3 so far');
    b.asm.add({ ...b.e.meta, checksums: { algo: 1, entryBytes: 8, first: 2, values: checksumOf(unit(2)) } });
    vote.heard(1, 2, 3);
    assert.equal(vote.verify(2, unit(2)), true);
    assert.equal(vote.verify(2, unit(3)), false);
    // proxy 2 leaves: proxies 0 and 1 are the voters; unit 1 still needs proxy 0's checksum
    vote.drop(2);
    assert.equal(vote.decided(1), false);
    vote.drop(0);
    assert.equal(vote.decided(1), true, 'the one voter left decides');
    assert.deepEqual(vote.pollLiars(), []);
  });

  it('a streamed checksum that disagrees with a decided one names its proxy', () => {
    const a = entry(0, { 0: 1 });
    const b = entry(1, { 0: 1 });
    const c = entry(2, {});
    const vote = createMetaVote([a.e, b.e, c.e]);
    c.asm.add({ ...c.e.meta, checksums: { algo: 1, entryBytes: 8, first: 0, values: new Uint8Array(8).fill(2) } });
    vote.heard(2, 0, 1);
    assert.deepEqual(vote.pollLiars().map((v) => [v.source, v.code]), [[2, 'ERR_INTEGRITY']]);
  });
});
