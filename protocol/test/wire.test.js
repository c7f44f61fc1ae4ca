// The wire format: byte layouts, round trips, limits, and parsers that never throw.
import assert from 'node:assert/strict';
import {
  encodeMessage, decodeMessage, maxGenerationSize, normalizeParams, computeLayout, createSender, createReceiver, createBundleWriter,
  MAX_DATAGRAM_BYTES, MAX_BUNDLE_BYTES, MAX_URL_BYTES, epochPackets,
} from '../index.js';
import { createRng } from '../src/rng.js';

/** @type {import('../src/wire.js').WireMessage[]} */
const samples = [
  { type: 'request', downloadId: 7, url: 'http://127.0.0.1:8080/v.mp4', method: 'GET', range: { start: 0, end: 2 ** 40 }, mode: 'coded',
    sourceIndex: 2, sourceCount: 4, seed: 99, params: { payloadSize: 1100, window: 240, generationSize: 24, feedbackEvery: 8, surplus: 0, scheduler: 'share' } },
  { type: 'meta', downloadId: 7, mode: 'coded', totalSize: 1500000, payloadSize: 1100, packetCount: 1364, generationSize: 24,
    generationCount: 57, window: 240, feedbackEvery: 8, serverFetchMs: 42, checksums: { algo: 1, entryBytes: 8, first: 55, values: new Uint8Array(16).fill(5) } },
  { type: 'data', downloadId: 7, seq: 1, index: 1363, payload: new Uint8Array(700).fill(3) },
  { type: 'coded', downloadId: 7, seq: 2, generation: 56, symbols: 20, codedPayload: new Uint8Array(20 + 1100).fill(9) },
  { type: 'feedback', downloadId: 7, mode: 'uncoded', seq: 3, echo: [5, 0], base: 10, bits: 13, bitmap: new Uint8Array([0xff, 0x1f]), dof: null, contrib: null },
  { type: 'feedback', downloadId: 7, mode: 'coded', seq: 4, echo: [5, 6], base: 1, dof: [3, 24], contrib: new Uint8Array([1, 2, 20, 4]) },
  { type: 'done', downloadId: 7 },
  { type: 'error', downloadId: 7, code: 'ERR_SSRF_BLOCKED', message: 'nope ✓' },
  { type: 'hint', downloadId: 7, url: 'http://127.0.0.1:8080/seg-2 ✓.m4s' },
  { type: 'timing', downloadId: 7, originMs: 312, prepareMs: 4 },
];

describe('wire format', () => {
  it('round-trips every message type', () => {
    for (const m of samples) {
      const b = encodeMessage(m);
      assert.ok(b.length <= MAX_DATAGRAM_BYTES);
      const r = decodeMessage(b);
      assert.ok(r.ok, `${m.type}: ${r.error && r.error.code}`);
      assert.deepEqual(encodeMessage(r.msg), b, m.type);
      assert.equal(r.msg.type, m.type);
    }
  });

  it('lays out data and coded headers as documented (big-endian)', () => {
    const d = encodeMessage(samples[2]);
    assert.deepEqual([...d.subarray(0, 14)], [1, 3, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0x05, 0x53]);
    const c = encodeMessage(samples[3]);
    assert.deepEqual([...c.subarray(0, 16)], [1, 4, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 56, 0, 20]);
    assert.equal(c.length, 16 + 20 + 1100);
  });

  it('refuses every truncation of every message with a typed error', () => {
    for (const m of samples) {
      const b = encodeMessage(m);
      for (let n = 0; n < b.length; n++) {
        if (m.type === 'data' || m.type === 'coded') if (n > (m.type === 'data' ? 14 : 16 + m.symbols)) continue; // shorter payloads are legal here; the receiver checks length
        const r = decodeMessage(b.subarray(0, n));
        assert.equal(r.ok, false, `${m.type} truncated to ${n} bytes was accepted`);
        assert.match(r.error.code, /^ERR_/);
      }
    }
  });

  it('never throws on random bytes, and refuses oversize, bad version, unknown type', () => {
    const rand = createRng(42);
    for (let i = 0; i < 20000; i++) {
      const b = new Uint8Array(Math.floor(rand() * 80));
      for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
      if (rand() < 0.5 && b.length > 1) { b[0] = 1; b[1] = 1 + Math.floor(rand() * 8); }
      const r = decodeMessage(b);
      assert.equal(typeof r.ok, 'boolean');
    }
    assert.equal(decodeMessage(new Uint8Array(MAX_DATAGRAM_BYTES + 1)).error.code, 'ERR_TOO_LARGE');
    const d = encodeMessage(samples[6]);
    d[0] = 2;
    assert.equal(decodeMessage(d).error.code, 'ERR_BAD_VERSION');
    d[0] = 1; d[1] = 99;
    assert.equal(decodeMessage(d).error.code, 'ERR_UNKNOWN_TYPE');
    assert.equal(decodeMessage(/** @type {any} */ ('x')).ok, false);
  });

  it('refuses an inconsistent meta and an over-long URL', () => {
    const b = encodeMessage({ .../** @type {import('../src/wire.js').MetaMessage} */ (samples[1]), checksums: null });
    b[17] ^= 1; // packetCount
    assert.equal(decodeMessage(b).error.code, 'ERR_BAD_FIELD');
    const request = /** @type {import('../src/wire.js').RequestMessage} */ (samples[0]);
    assert.throws(() => encodeMessage({ ...request, url: 'x'.repeat(MAX_URL_BYTES + 1) }), { code: 'ERR_BAD_MESSAGE' });
    assert.ok(decodeMessage(encodeMessage({ ...request, url: 'x'.repeat(MAX_URL_BYTES) })).ok);
  });

  it('lays out a hint as documented, and refuses a bad URL length, trailing bytes and bad UTF-8', () => {
    const h = encodeMessage({ type: 'hint', downloadId: 7, url: 'http://o/a' });
    assert.deepEqual([...h.subarray(0, 8)], [1, 8, 0, 0, 0, 7, 0, 10]);
    assert.equal(h.length, 8 + 10);
    assert.throws(() => encodeMessage({ type: 'hint', downloadId: 7, url: '' }), { code: 'ERR_BAD_MESSAGE' });
    assert.throws(() => encodeMessage({ type: 'hint', downloadId: 7, url: 'x'.repeat(MAX_URL_BYTES + 1) }), { code: 'ERR_BAD_MESSAGE' });
    const longer = new Uint8Array(h.length + 1);
    longer.set(h);
    assert.equal(decodeMessage(longer).error.code, 'ERR_BAD_LENGTH');
    const empty = h.slice(0, 8);
    empty[7] = 0;
    assert.equal(decodeMessage(empty).error.code, 'ERR_BAD_LENGTH');
    const bad = h.slice();
    bad[8] = 0xff;
    assert.equal(decodeMessage(bad).error.code, 'ERR_BAD_FIELD');
  });
});

describe('bundles', () => {
  const coded = (/** @type {number} */ seq) => encodeMessage({ type: 'coded', downloadId: 7, seq, generation: 1, symbols: 24, codedPayload: new Uint8Array(24 + 1100).fill(seq) });
  /** A bundle of the given datagrams, written as the proxy writes it. @param {Uint8Array[]} parts */
  const bundleOf = (parts) => {
    const w = createBundleWriter(7);
    for (const p of parts) w.alloc(p.length).set(p);
    return /** @type {Uint8Array} */ (w.take());
  };

  it('a request says whether the client takes bundles (byte 21, bit 0); other bits are ignored', () => {
    const request = /** @type {import('../src/wire.js').RequestMessage} */ (samples[0]);
    const b = encodeMessage({ ...request, bundles: true });
    assert.equal(b[21], 1);
    assert.equal(/** @type {any} */ (decodeMessage(b).msg).bundles, true);
    assert.equal(/** @type {any} */ (decodeMessage(encodeMessage(request)).msg).bundles, false);
    b[21] = 0xfe;
    assert.equal(/** @type {any} */ (decodeMessage(b).msg).bundles, false, 'a later ability bit alone');
  });

  it('round-trips the datagrams it holds, as the layout says; one datagram goes alone; it stops at MAX_BUNDLE_BYTES', () => {
    const parts = [coded(1), coded(2), coded(3)];
    const b = bundleOf(parts);
    assert.deepEqual([...b.subarray(0, 9)], [1, 9, 0, 0, 0, 7, 3, 0x04, 0x74]);
    const r = decodeMessage(b);
    assert.ok(r.ok);
    assert.deepEqual(/** @type {any} */ (r.msg).parts.map((/** @type {Uint8Array} */ p) => [...p]), parts.map((p) => [...p]));
    assert.deepEqual(bundleOf([parts[0]]), parts[0]);
    const w = createBundleWriter(7);
    let n = 0;
    while (w.fits(parts[0].length)) { w.alloc(parts[0].length).set(parts[0]); n++; }
    assert.equal(n, 3);
    assert.ok(/** @type {Uint8Array} */ (w.take()).length <= MAX_BUNDLE_BYTES);
    assert.equal(w.take(), null, 'taken: empty again');
  });

  it('refuses a bad bundle with a code: truncated, a part too long or too short, trailing bytes, a part that is not data', () => {
    const good = bundleOf([coded(1), coded(2)]);
    const cases = /** @type {[Uint8Array, string][]} */ ([
      [good.subarray(0, 7), 'ERR_TRUNCATED'],
      [good.subarray(0, good.length - 1), 'ERR_BAD_LENGTH'],
      [Uint8Array.from([...good, 0]), 'ERR_BAD_LENGTH'],
    ]);
    const empty = good.slice(0, 7);
    empty[6] = 0;
    cases.push([empty, 'ERR_BAD_FIELD']);
    const long = good.slice();
    long[7] = 0x05; // first part's length 0x05xx > MAX_DATAGRAM_BYTES
    cases.push([long, 'ERR_BAD_LENGTH']);
    const feedbackInside = good.slice();
    feedbackInside[9 + 1] = 5; // the first part's type byte
    cases.push([feedbackInside, 'ERR_BAD_FIELD']);
    const big = new Uint8Array(MAX_BUNDLE_BYTES + 1);
    big.set(good.subarray(0, 7));
    cases.push([big, 'ERR_TOO_LARGE']);
    for (const [bytes, code] of cases) assert.equal(decodeMessage(bytes).error?.code, code);
    assert.throws(() => createBundleWriter(7).alloc(MAX_DATAGRAM_BYTES + 1), { code: 'ERR_BAD_MESSAGE' });
  });
});

describe('parameters and limits', () => {
  it('max g for the default payload is 84; larger is refused with a code', () => {
    assert.equal(maxGenerationSize(1100), 84);
    assert.equal(normalizeParams({ generationSize: 84 }).generationSize, 84);
    assert.throws(() => normalizeParams({ generationSize: 85 }), { code: 'ERR_PARAMS_DO_NOT_FIT' });
    assert.throws(() => normalizeParams({ payloadSize: 1190 }, 'uncoded'), { code: 'ERR_PARAMS_DO_NOT_FIT' });
    assert.throws(() => normalizeParams({ window: 0 }), { code: 'ERR_BAD_PARAMS' });
  });

  it('represents 0 B, 1 B and 64 MiB objects, and refuses a too-large one', () => {
    const p = normalizeParams();
    for (const size of [0, 1, 64 * 2 ** 20]) {
      const l = computeLayout('coded', size, p);
      assert.equal(l.packetCount, Math.ceil(size / 1100));
      /** @type {import('../src/wire.js').MetaMessage} */
      const meta = { type: 'meta', downloadId: 1, mode: 'coded', totalSize: size, payloadSize: 1100, packetCount: l.packetCount,
        generationSize: 24, generationCount: l.generationCount, window: 240, feedbackEvery: 8 };
      assert.ok(decodeMessage(encodeMessage(meta)).ok, `size ${size}`);
    }
    assert.throws(() => computeLayout('coded', 2 ** 30 + 1, p), { code: 'ERR_OBJECT_TOO_LARGE' });
  });
});

describe('state machines under bad input', () => {
  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    it(`${mode}: random, foreign and out-of-range messages change nothing`, async () => {
      const data = new Uint8Array(50000).map((_, i) => (i * 13) & 255);
      const sender = await createSender({ mode, data, sourceIndex: 0, sourceCount: 2, seed: 1, downloadId: 5 });
      const receiver = await createReceiver({ meta: sender.meta(), sourceCount: 2, now: 0 });
      const rand = createRng(7);
      const good = [];
      for (let i = 0; i < 30; i++) good.push(sender.nextPacket(i));
      const before = JSON.stringify({ s: sender.stats.sent, seq: sender.seq });
      for (let i = 0; i < 3000; i++) {
        const b = new Uint8Array(6 + Math.floor(rand() * 60));
        for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
        b[0] = 1; b[1] = 3 + Math.floor(rand() * 3);
        if (rand() < 0.5) { b[2] = 0; b[3] = 0; b[4] = 0; b[5] = 5; } // our download id
        const r = decodeMessage(b);
        if (!r.ok) continue;
        sender.handleFeedback(r.msg, 100);
        receiver.handlePacket(r.msg, Math.floor(rand() * 3) - 0, 100);
      }
      // hand-made hostile messages
      receiver.handlePacket({ ...good[0], downloadId: 6 }, 0, 1);
      receiver.handlePacket({ ...good[0], index: 10 ** 6, generation: 10 ** 6 }, 0, 1);
      receiver.handlePacket(good[0], 7, 1);
      receiver.handlePacket(null, 0, 1);
      sender.handleFeedback({ type: 'feedback', downloadId: 99, mode, seq: 1, echo: [1, 1], base: 0, bits: 0, bitmap: new Uint8Array(0), dof: [], contrib: new Uint8Array(0) }, 1);
      sender.handleFeedback({ type: 'feedback', downloadId: 5, mode, seq: 1, echo: [10 ** 6, 0], base: 0, bits: 0, bitmap: new Uint8Array(0), dof: [], contrib: new Uint8Array(0) }, 1);
      assert.equal(receiver.counts().dof, 0, 'no DoF from garbage');
      assert.equal(JSON.stringify({ s: sender.stats.sent, seq: sender.seq }), before);
      assert.ok(receiver.counts().ignored + receiver.counts().invalid + receiver.counts().outOfWindow > 0);
      // the genuine transfer still completes byte-exact
      for (const m of good) receiver.handlePacket(m, 0, 200);
      let t = 200;
      while (!receiver.isComplete() && t < 5000) {
        const m = sender.nextPacket(t);
        if (m) receiver.handlePacket(decodeMessage(encodeMessage(m)).msg, 0, t);
        const fb = receiver.pollFeedback(t);
        if (fb && fb.type === 'feedback') sender.handleFeedback(decodeMessage(encodeMessage(fb)).msg, t);
        t += 1;
      }
      assert.ok(receiver.isComplete());
      assert.deepEqual(Buffer.from(receiver.data()), Buffer.from(data));
    });
  }

  it('coded sources with the same seed still send different packets', async () => {
    const data = new Uint8Array(30000).fill(1);
    const a = /** @type {any} */ (await createSender({ mode: 'coded', data, sourceIndex: 0, sourceCount: 2, seed: 5 }));
    const b = /** @type {any} */ (await createSender({ mode: 'coded', data, sourceIndex: 1, sourceCount: 2, seed: 5 }));
    const pa = a.encoderFor(0).writePayload();
    const pb = b.encoderFor(0).writePayload();
    assert.notDeepEqual([...pa.subarray(0, 24)], [...pb.subarray(0, 24)], 'coefficients must differ across sources');
    assert.notEqual(a.seed, b.seed);
  });

  it('feedback is due to each source after feedbackEvery packets of its own; a completed generation tells all', async () => {
    const data = new Uint8Array(30_000).map((_, i) => i & 0xff);
    const senders = await Promise.all([0, 1, 2, 3].map((i) => createSender({ mode: 'coded', data, seed: 5, sourceIndex: i, sourceCount: 4 })));
    const r = await createReceiver({ meta: senders[0].meta(), params: { feedbackEvery: 4, feedbackMaxDelayMs: 1000 }, sourceCount: 4, now: 0 });
    /** @type {any[]} */
    const polls = [];
    const take = (/** @type {number} */ src, /** @type {number} */ t) => {
      const pkt = senders[src].nextPacket(t);
      assert.ok(pkt, `source ${src} has a packet at ${t}`);
      r.handlePacket(pkt, src, t);
      const fb = r.pollFeedbackFor(t);
      if (!fb) return;
      polls.push({ t, type: fb.message.type, sources: fb.sources });
      for (const i of fb.sources) senders[i].handleFeedback(fb.message, t);
    };
    for (let k = 0; k < 3; k++) for (let src = 0; src < 4; src++) take(src, 1 + k * 4 + src); // 12 packets, 3 each: none due
    assert.deepEqual(polls, [], 'three packets of each of four sources: no source has had feedbackEvery of its own');
    take(2, 20);
    assert.deepEqual(polls, [{ t: 20, type: 'feedback', sources: [2] }], 'only the source that sent its fourth packet');
    // source 0 alone until the first generation (g = 24) completes: feedback to it every 4 of its packets, then to all
    for (let t = 21; !polls.some((p) => p.sources.length > 1) && t < 100; t++) take(0, t);
    const all = polls.findIndex((p) => p.sources.length > 1);
    assert.deepEqual(polls[all]?.sources, [0, 1, 2, 3], `the completed generation goes to every source (${JSON.stringify(polls)})`);
    assert.ok(all >= 3 && polls.slice(1, all).every((p) => p.sources.join() === '0'), JSON.stringify(polls));
    for (const snd of senders) snd.close();
    r.close();
  });

  it('uncoded: the feedback that moves the window base into a new epoch goes to every source', async () => {
    const window = 40; // epochs of 10 packets
    const data = new Uint8Array(1100 * 60).map((_, i) => i & 0xff);
    const s = await createSender({ mode: 'uncoded', data, seed: 5, sourceIndex: 0, sourceCount: 4, params: { window } });
    const r = await createReceiver({ meta: s.meta(), params: { feedbackEvery: 100, feedbackMaxDelayMs: 10_000 }, sourceCount: 4, now: 0 });
    const epoch = epochPackets(window);
    /** @type {number[]} */
    const toAll = [];
    for (let i = 0; i < 25; i++) {
      r.handlePacket({ type: 'data', downloadId: s.downloadId, seq: i + 1, index: i, payload: data.subarray(i * 1100, (i + 1) * 1100) }, i % 4, i);
      const fb = r.pollFeedbackFor(i);
      if (fb) { assert.equal(fb.sources.length, 4, `feedback to ${fb.sources} only`); toAll.push(/** @type {any} */ (fb.message).base); }
    }
    assert.deepEqual(toAll, [epoch, 2 * epoch], 'one feedback to all as the base enters each epoch, none between');
    s.close();
    r.close();
  });

  it('receivedLog records every packet and feedback time', async () => {
    const data = new Uint8Array(12000).fill(2);
    const s = await createSender({ mode: 'uncoded', data, seed: 1 });
    const r = await createReceiver({ meta: s.meta(), params: { feedbackEvery: 4 }, now: 0 });
    for (let t = 1; t <= 11; t++) { r.handlePacket(s.nextPacket(t), 0, t); r.pollFeedback(t); }
    r.handlePacket({ type: 'data', downloadId: 0, seq: 99, index: 0, payload: data.subarray(0, 1100) }, 0, 12);
    const recs = r.receivedLog.packets();
    assert.equal(recs.length, 12);
    assert.deepEqual(recs.map((x) => x.dof), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11]);
    assert.equal(recs[11].useful, false);
    assert.equal(recs[0].t, 1);
    assert.deepEqual(r.receivedLog.feedback.slice(0, 2), [4, 8]);
    assert.equal(r.receivedLog.toRecord(1).packetLog[0][0], 0);
  });

  it('lays out a timing message as documented, refuses another length and values that are not u32 ms; a request asks for it in bit 2 of byte 21', () => {
    const t = encodeMessage({ type: 'timing', downloadId: 7, originMs: 0x01020304, prepareMs: 5 });
    assert.deepEqual([...t], [1, 10, 0, 0, 0, 7, 1, 2, 3, 4, 0, 0, 0, 5]);
    assert.equal(decodeMessage(t.subarray(0, 13)).error.code, 'ERR_BAD_LENGTH');
    assert.equal(decodeMessage(Uint8Array.from([...t, 0])).error.code, 'ERR_BAD_LENGTH');
    assert.throws(() => encodeMessage({ type: 'timing', downloadId: 7, originMs: -1, prepareMs: 0 }), { code: 'ERR_BAD_MESSAGE' });
    assert.throws(() => encodeMessage({ type: 'timing', downloadId: 7, originMs: 1.5, prepareMs: 0 }), { code: 'ERR_BAD_MESSAGE' });
    const request = /** @type {import('../src/wire.js').RequestMessage} */ (samples[0]);
    const asked = encodeMessage({ ...request, bundles: false, streamed: false, timing: true });
    assert.equal(asked[21], 4);
    assert.equal(/** @type {any} */ (decodeMessage(asked).msg).timing, true);
    assert.equal(/** @type {any} */ (decodeMessage(encodeMessage({ ...request, timing: false })).msg).timing, false);
  });

  it('a request that holds generations sets bit 3 of byte 21; a meta that keeps them, bit 2 of byte 7; a higher meta bit is refused', () => {
    const request = /** @type {import('../src/wire.js').RequestMessage} */ (samples[0]);
    const asked = encodeMessage({ ...request, holds: true });
    assert.equal(asked[21], 8);
    assert.equal(/** @type {any} */ (decodeMessage(asked).msg).holds, true);
    assert.equal(/** @type {any} */ (decodeMessage(encodeMessage(request)).msg).holds, false);
    const meta = /** @type {import('../src/wire.js').MetaMessage} */ (samples[1]);
    const kept = encodeMessage({ ...meta, keepsHeld: true });
    assert.equal(kept[7], 1 | 4);
    assert.equal(/** @type {any} */ (decodeMessage(kept).msg).keepsHeld, true);
    assert.equal(/** @type {any} */ (decodeMessage(encodeMessage(meta)).msg).keepsHeld, false);
    const unknown = kept.slice();
    unknown[7] |= 8;
    assert.equal(decodeMessage(unknown).error?.code, 'ERR_BAD_FIELD');
  });
});
