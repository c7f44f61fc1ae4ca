// Integrity metadata: meta carries serverFetchMs and the checksum table in slices
// that each fit one datagram; the client believes the majority of proxies and names the liars.
import assert from 'node:assert/strict';
import {
  createSender, encodeMessage, decodeMessage, createMetaVote, createMetaAssembler, majorityAgrees, checksumOf, checksumTable,
  MIN_CONTRADICTING_PACKETS, MAX_DATAGRAM_BYTES, CHECKSUMS_PER_META, CHECKSUM_ENTRY_BYTES,
} from '../index.js';

/** @param {number} size @param {number} [seed] */
function object(size, seed = 1) {
  const d = new Uint8Array(size);
  for (let i = 0; i < size; i++) d[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return d;
}

/** Meta messages of a sender, through the wire. @param {any} sender @param {(m: any) => any} [edit] */
function metasOf(sender, edit = (m) => m) {
  return sender.metaMessages({ serverFetchMs: 12.4 }).map((/** @type {any} */ m) => {
    const b = encodeMessage(edit(m));
    assert.ok(b.length <= MAX_DATAGRAM_BYTES, `meta of ${b.length} bytes`);
    const r = decodeMessage(b);
    assert.ok(r.ok, r.error?.code);
    return r.msg;
  });
}

/** @param {any[]} msgs @param {number} source */
function assemble(msgs, source) {
  const a = createMetaAssembler(msgs[0]);
  for (const m of msgs) assert.equal(a.add(m), null);
  assert.equal(a.complete, true);
  return { source, meta: a.meta, table: a.table };
}

describe('integrity: meta checksums and the majority rule', () => {
  it('a large uncoded object needs several meta datagrams; all together give every packet a checksum', async () => {
    const data = object(400_000);
    const s = await createSender({ mode: 'uncoded', data, downloadId: 9 });
    const msgs = metasOf(s);
    const L = s.layout.packetCount;
    assert.equal(msgs.length, Math.ceil(L / CHECKSUMS_PER_META));
    assert.equal(msgs[0].serverFetchMs, 12);
    const e = assemble(msgs, 0);
    assert.deepEqual(e.table.subarray(5 * CHECKSUM_ENTRY_BYTES, 6 * CHECKSUM_ENTRY_BYTES), checksumOf(data.subarray(5 * 1100, 6 * 1100)));
    const partial = createMetaAssembler(msgs[0]);
    partial.add(msgs[0]);
    assert.equal(partial.complete, false, 'one slice is not the whole table');
  });

  it('a sender given the checksum table sends it as is (hashed once per object); a table of the wrong size is refused', async () => {
    const data = object(100_000);
    const a = await createSender({ mode: 'coded', data, downloadId: 9 });
    const table = checksumTable(data, a.layout);
    const marked = table.slice();
    marked[0] ^= 1; // a sender that hashed on its own would send the true first entry
    const b = await createSender({ mode: 'coded', data, downloadId: 9, checksums: marked });
    assert.deepEqual(assemble(metasOf(b), 0).table, marked);
    assert.deepEqual(assemble(metasOf(a), 0).table, table);
    await assert.rejects(createSender({ mode: 'coded', data, downloadId: 9, checksums: table.subarray(8) }), { code: 'ERR_BAD_PARAMS' });
  });

  it('the parser refuses checksum slices outside the object and unknown algorithms', async () => {
    const s = await createSender({ mode: 'coded', data: object(100_000), downloadId: 9 });
    const [m] = s.metaMessages();
    const outside = encodeMessage({ ...m, checksums: { ...m.checksums, first: m.generationCount } });
    assert.equal(decodeMessage(outside).error?.code, 'ERR_BAD_FIELD');
    const algo = encodeMessage({ ...m, checksums: { ...m.checksums, algo: 9 } });
    assert.equal(decodeMessage(algo).error?.code, 'ERR_BAD_FIELD');
    const b = encodeMessage(m);
    assert.equal(decodeMessage(b.subarray(0, b.length - 1)).error?.code, 'ERR_BAD_LENGTH');
    assert.equal(/** @type {any} */ (decodeMessage(encodeMessage({ ...m, serverFetchMs: null })).msg)?.serverFetchMs, null);
  });

  it('three proxies, one lies in its checksums: it is excluded with ERR_INTEGRITY, data verifies against the majority', async () => {
    const data = object(100_000);
    const senders = await Promise.all([0, 1, 2].map((i) => createSender({ mode: 'coded', data, sourceIndex: i, sourceCount: 3, downloadId: 1 })));
    const lie = (/** @type {any} */ m) => { const v = m.checksums.values.slice(); v[3] ^= 1; return { ...m, checksums: { ...m.checksums, values: v } }; };
    const entries = senders.map((s, i) => assemble(metasOf(s, i === 1 ? lie : undefined), i));
    const vote = createMetaVote(entries);
    assert.deepEqual(vote.excluded.map((v) => [v.source, v.code]), [[1, 'ERR_INTEGRITY']]);
    assert.equal(vote.verify(0, data.subarray(0, 24 * 1100)), true);
    assert.equal(vote.verify(0, data.subarray(1, 24 * 1100 + 1)), false);
  });

  it('the vote is decided early only when more than half of all voters sent the same layout and checksums', async () => {
    const data = object(100_000);
    const senders = await Promise.all([0, 1, 2, 3].map((i) => createSender({ mode: 'coded', data, sourceIndex: i, sourceCount: 5, downloadId: 1 })));
    const lie = (/** @type {any} */ m) => { const v = m.checksums.values.slice(); v[3] ^= 1; return { ...m, checksums: { ...m.checksums, values: v } }; };
    const [a, b, c, liar] = senders.map((s, i) => assemble(metasOf(s, i === 3 ? lie : undefined), i));
    assert.equal(majorityAgrees([a, b, c], 5), true, '3 of 5 agree');
    assert.equal(majorityAgrees([a, b], 5), false, '2 of 5');
    assert.equal(majorityAgrees([a, b], 4), false, '2 of 4 is no strict majority');
    assert.equal(majorityAgrees([liar, a, b], 4), false, 'same layout, another checksum: 2 of 4 agree');
    assert.equal(majorityAgrees([liar, a, b, c], 5), true, '3 of 5 agree beside a liar');
  });

  it('three proxies, one lies about the size: outvoted with ERR_META_MISMATCH', async () => {
    const data = object(100_000);
    const honest = await createSender({ mode: 'coded', data, downloadId: 1 });
    const liar = await createSender({ mode: 'coded', data: data.subarray(0, 90_000), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(liar), 0), assemble(metasOf(honest), 1), assemble(metasOf(honest), 2)]);
    assert.equal(vote.meta.totalSize, 100_000);
    assert.deepEqual(vote.excluded.map((v) => [v.source, v.code]), [[0, 'ERR_META_MISMATCH']]);
  });

  it("two proxies disagree (a tie): only a packet of the liar, contradicting what it gave, settles it; the other's own packet proves nothing", async () => {
    const data = object(60_000);
    const s = await createSender({ mode: 'uncoded', data, downloadId: 1 });
    const lie = (/** @type {any} */ m) => { const v = m.checksums.values.slice(); v[8] ^= 0xff; return { ...m, checksums: { ...m.checksums, values: v } }; };
    const vote = createMetaVote([assemble(metasOf(s, lie), 0), assemble(metasOf(s), 1)]);
    assert.deepEqual(vote.excluded, []);
    const from = (/** @type {number} */ source) => Uint8Array.from([0, 1], (i) => (i === source ? 1 : 0));
    assert.equal(vote.verify(1, data.subarray(1100, 2200), from(1)), null, 'packet 1 from the proxy whose value it matches: not taken');
    assert.deepEqual(vote.pollLiars(), [], 'nobody named');
    assert.equal(vote.verify(1, data.subarray(1100, 2200)), null, 'nor without knowing whose it is');
    assert.equal(vote.verify(1, data.subarray(1100, 2200), from(0)), true, 'the same bytes from the proxy that gave the other value');
    assert.deepEqual(vote.pollLiars().map((v) => [v.source, v.code]), [[0, 'ERR_INTEGRITY']]);
    assert.equal(vote.verify(1, data.subarray(0, 1100), from(1)), false);
    assert.equal(vote.unresolved(), null);
  });

  it('two proxies, each consistent with its own copy: once the data of both matched their own values, the vote is unresolved and names nobody', async () => {
    const a = await createSender({ mode: 'coded', data: object(60_000, 1), downloadId: 1 });
    const b = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(a), 0), assemble(metasOf(b), 1)]);
    const bytes = (/** @type {number} */ seed) => object(60_000, seed).subarray(0, a.meta().payloadSize * a.meta().generationSize);
    assert.equal(vote.verify(0, bytes(1), [40, 0]), null, 'proxy 0 alone: its own value, nothing against proxy 1');
    assert.equal(vote.unresolved(), null, 'proxy 1 may still contradict itself');
    assert.equal(vote.verify(0, bytes(2), [3, 37]), null, "proxy 0's 3 packets are too few to show it wrong");
    assert.equal(vote.verify(0, bytes(2), [0, 40]), null);
    assert.match(String(vote.unresolved()), /unit 0 disagree/);
    assert.deepEqual(vote.pollLiars(), []);
  });

  it("a coded decode with enough of a proxy's packets that matches the other value shows it a liar", async () => {
    const a = await createSender({ mode: 'coded', data: object(60_000, 1), downloadId: 1 });
    const b = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(a), 0), assemble(metasOf(b), 1)]);
    const bytes = object(60_000, 2).subarray(0, a.meta().payloadSize * a.meta().generationSize);
    assert.equal(vote.verify(0, bytes, [MIN_CONTRADICTING_PACKETS, 40 - MIN_CONTRADICTING_PACKETS]), true);
    assert.deepEqual(vote.pollLiars().map((v) => [v.source, v.code]), [[0, 'ERR_INTEGRITY']]);
  });

  it('a proxy that gave a value and then dropped out still counts: the other alone cannot settle the tie', async () => {
    const a = await createSender({ mode: 'coded', data: object(60_000, 1), downloadId: 1 });
    const b = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(a), 0), assemble(metasOf(b), 1)]);
    vote.drop(0);
    assert.equal(vote.decided(0), false);
    assert.equal(vote.verify(0, object(60_000, 2).subarray(0, a.meta().payloadSize * a.meta().generationSize), [0, 40]), null);
    assert.match(String(vote.unresolved()), /disagree/);
  });

  it('two proxies give two sizes: no strict majority, unresolved, nobody outvoted', async () => {
    const data = object(100_000);
    const longer = await createSender({ mode: 'coded', data, downloadId: 1 });
    const shorter = await createSender({ mode: 'coded', data: data.subarray(0, 90_000), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(shorter), 0), assemble(metasOf(longer), 1)]);
    assert.match(String(vote.unresolved()), /no strict majority/);
    assert.deepEqual(vote.excluded, [], 'the first to answer is not believed over the other');
  });

  it('a tie of two while a third meta is awaited: no data settles it, and the vote is not unresolved, until that meta comes', async () => {
    const data = object(60_000);
    const truth = await createSender({ mode: 'coded', data, downloadId: 1 });
    const other = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(other), 0), assemble(metasOf(truth), 1)], [2]);
    const unit0 = (/** @type {Uint8Array} */ d) => d.subarray(0, truth.meta().payloadSize * truth.meta().generationSize);
    assert.equal(vote.awaits(), true);
    assert.equal(vote.verify(0, unit0(object(60_000, 2)), [0, 40, 0]), undefined, 'open: the awaited meta may decide it');
    assert.equal(vote.verify(0, unit0(data), [0, 40, 0]), undefined);
    assert.equal(vote.unresolved(), null, 'each proxy consistent with its own copy, yet not unresolved');
    assert.equal(vote.admit(assemble(metasOf(truth), 2)), null);
    assert.equal(vote.awaits(), false);
    assert.deepEqual(vote.pollLiars().map((v) => [v.source, v.code]), [[0, 'ERR_INTEGRITY']]);
    assert.equal(vote.verify(0, unit0(data), [0, 40, 0]), true);
  });

  it('an awaited meta that will not come (its proxy dropped, or the wait is over): the units no majority decided are ties', async () => {
    const a = await createSender({ mode: 'coded', data: object(60_000, 1), downloadId: 1 });
    const b = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const bytes = (/** @type {number} */ seed) => object(60_000, seed).subarray(0, a.meta().payloadSize * a.meta().generationSize);
    for (const end of /** @type {const} */ (['drop', 'stopAwaiting'])) {
      const vote = createMetaVote([assemble(metasOf(a), 0), assemble(metasOf(b), 1)], [2]);
      if (end === 'drop') vote.drop(2);
      else vote.stopAwaiting();
      assert.equal(vote.awaits(), false);
      assert.equal(vote.verify(0, bytes(1), [40, 0, 0]), null, `${end}: a tie, left to the data`);
      assert.equal(vote.verify(0, bytes(2), [0, 40, 0]), null);
      assert.match(String(vote.unresolved()), /unit 0 disagree/, end);
    }
  });

  it('an awaited meta that lies is refused, and the tie it left is then the data\'s', async () => {
    const a = await createSender({ mode: 'coded', data: object(60_000, 1), downloadId: 1 });
    const b = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 });
    const shorter = await createSender({ mode: 'coded', data: object(50_000, 1), downloadId: 1 });
    const vote = createMetaVote([assemble(metasOf(a), 0), assemble(metasOf(b), 1)], [2]);
    assert.equal(vote.admit(assemble(metasOf(shorter), 2))?.code, 'ERR_META_MISMATCH');
    assert.equal(vote.awaits(), false);
    assert.equal(vote.verify(0, object(60_000, 1).subarray(0, a.meta().payloadSize * a.meta().generationSize), [40, 0, 0]), null, 'a tie now');
  });

  it('a tie of two, then a third meta comes late: it breaks the tie at once, and the liar is named before any data', async () => {
    const data = object(60_000);
    const truth = await createSender({ mode: 'coded', data, downloadId: 1 });
    const other = await createSender({ mode: 'coded', data: object(60_000, 2), downloadId: 1 }); // a consistent liar: another object of the same size
    const vote = createMetaVote([assemble(metasOf(other), 0), assemble(metasOf(truth), 1)]);
    assert.deepEqual(vote.excluded, []);
    assert.equal(vote.admit(assemble(metasOf(truth), 2)), null, 'the late honest meta is admitted');
    assert.deepEqual(vote.pollLiars().map((v) => [v.source, v.code]), [[0, 'ERR_INTEGRITY']]);
    assert.equal(vote.verify(0, object(60_000, 2).subarray(0, truth.meta().payloadSize * truth.meta().generationSize)), false, "the liar's data no longer verifies");
    assert.equal(vote.verify(0, data.subarray(0, truth.meta().payloadSize * truth.meta().generationSize)), true);
  });
});
