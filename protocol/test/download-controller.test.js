// The client's download policy (src/download-controller.js), piped into real protocol senders
// in-process: byte-exact delivery, request re-sends, the meta vote's wait, silent, broken,
// corrupt and lying proxies, and its timer (wakeAt).
import assert from 'node:assert/strict';
import { runPiped, assertByteExact, actionsOf } from './piped-download.js';
import { REQUEST_RESEND_MS, REQUEST_RESEND_FIRST_MS, META_QUORUM_WAIT_MS, META_TIMEOUT_MS, REUSED_SILENT_MS, MAX_URL_BYTES, createDownloadController, encodeMessage, decodeMessage } from '../index.js';

describe('download controller piped into the senders', () => {
  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: 4 proxies, 300 kB byte-exact; every proxy is told done`, async () => {
      const r = await runPiped({ mode, size: 300_001, n: 4 });
      assertByteExact(r);
      assert.ok(r.proxies.every((p) => p.done >= 1), 'done reached every proxy');
      assert.deepEqual(r.proxies.map((p) => p.requests), [1, 1, 1, 1]);
      assert.ok(r.proxies.every((p) => p.sent > 0), 'every proxy contributed');
      assert.equal(actionsOf(r, 'drop').length, 0);
    });
  }

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: a client that asks for bundles gets its packets a few to a message, byte-exact; a corrupt packet inside one is still caught`, async () => {
      const r = await runPiped({ mode, size: 300_001, n: 4, bundles: true });
      assertByteExact(r);
      const packets = r.proxies.reduce((a, p) => a + p.sent, 0);
      const messages = r.proxies.reduce((a, p) => a + p.messages, 0);
      assert.ok(messages < packets / 2, `${messages} messages for ${packets} packets`);
      // feedback, delivery and completion are decided once per bundle, not once per packet in it
      assert.ok(actionsOf(r, 'deliver').length <= messages, `${actionsOf(r, 'deliver').length} deliveries for ${messages} messages`);
      const plain = await runPiped({ mode, size: 300_001, n: 4 });
      assert.equal(plain.proxies.reduce((a, p) => a + p.messages, 0), plain.proxies.reduce((a, p) => a + p.sent, 0), 'one packet per message unless asked');
      const bad = await runPiped({ mode, size: 300_001, n: 4, bundles: true, faults: { 2: { corruptPacket: 5 } } });
      assertByteExact(bad);
      assert.equal(actionsOf(bad, 'drop').find((/** @type {any} */ a) => a.source === 2)?.code, 'ERR_INTEGRITY');
    });
  }

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: feedback goes out replaceable (it holds the receiver's whole state); requests and done do not`, async () => {
      const r = await runPiped({ mode, size: 300_001, n: 4 });
      assertByteExact(r);
      const sends = actionsOf(r, 'send').map((/** @type {any} */ a) => ({ type: decodeMessage(a.bytes).msg.type, replaceable: a.replaceable === true }));
      assert.ok(sends.filter((x) => x.type === 'feedback').length > 4, 'feedback was sent');
      assert.ok(sends.some((x) => x.type === 'request') && sends.some((x) => x.type === 'done'));
      for (const x of sends) assert.equal(x.replaceable, x.type === 'feedback', `a ${x.type} message`);
    });
  }

  it('a lost request is re-sent after REQUEST_RESEND_FIRST_MS, a second loss after REQUEST_RESEND_MS more', async () => {
    const r = await runPiped({ mode: 'coded', size: 100_000, n: 2, faults: { 1: { dropRequests: 2 } } });
    assertByteExact(r);
    assert.equal(r.proxies[1].requests, 3);
    assert.equal(r.proxies[0].requests, 1);
    const sends = r.actions.filter((a) => a.type === 'send' && a.source === 1 && a.t < 2000);
    assert.equal(sends[1].t - sends[0].t, REQUEST_RESEND_FIRST_MS, 'the second request went at the first re-send deadline');
    assert.equal(sends[2].t - sends[1].t, REQUEST_RESEND_MS, 'the third after the longer one: the proxy may be fetching the object');
  });

  it('next: each proxy hears the hint once, after its request; a re-sent request goes alone; a URL too long is not hinted', async () => {
    const make = (/** @type {string | undefined} */ next) => createDownloadController({
      mode: 'uncoded', url: 'http://o/seg-1.m4s', next, sourceCount: 2, downloadId: 9, seeds: [1, 2],
    });
    const types = (/** @type {any[]} */ actions) => actions.filter((a) => a.type === 'send').map((a) => {
      const m = decodeMessage(a.bytes).msg;
      return m?.type === 'hint' ? `hint ${m.url} ${m.downloadId}` : m?.type;
    });
    const c = await make('http://o/seg-2.m4s');
    assert.deepEqual(types(c.connected(0, {}, 0)), ['request', 'hint http://o/seg-2.m4s 9']);
    assert.deepEqual(types(c.connected(1, {}, 1)), ['request', 'hint http://o/seg-2.m4s 9']);
    assert.deepEqual(types(c.tick(REQUEST_RESEND_FIRST_MS)), ['request'], 'the re-send of the first');
    const none = await make(undefined);
    assert.deepEqual(types(none.connected(0, {}, 0)), ['request']);
    const long = await make(`http://o/${'x'.repeat(MAX_URL_BYTES)}`);
    assert.deepEqual(types(long.connected(0, {}, 0)), ['request']);
    // the connection's offer carried the request and the proxy took it: not sent again, but re-sent if no meta comes
    const taken = await make('http://o/seg-2.m4s');
    assert.deepEqual(types(taken.connected(0, { requestTaken: true }, 0)), ['hint http://o/seg-2.m4s 9']);
    assert.deepEqual(types(taken.tick(REQUEST_RESEND_FIRST_MS - 1)), []);
    assert.deepEqual(types(taken.tick(REQUEST_RESEND_FIRST_MS)), ['request'], 'no meta: re-sent as a lost one');
  });

  it('abort: every open source is told done, then the download fails; liveSources names the ones heard from lately', async () => {
    const c = await createDownloadController({ mode: 'coded', url: 'http://o/x', sourceCount: 3, downloadId: 5, seeds: [1, 2, 3] });
    c.connected(0, {}, 0);
    c.connected(1, {}, 0);
    c.datagram(1, new Uint8Array([1, 1, 0, 0, 0, 5]), 1000); // junk, not a sign of life
    assert.deepEqual(c.liveSources(1000), [0, 1]);
    assert.deepEqual(c.liveSources(REUSED_SILENT_MS), [], 'silent for REUSED_SILENT_MS');
    const acts = c.abort('ERR_ABORTED', 'gone');
    assert.deepEqual(acts.filter((a) => a.type === 'send').map((a) => [a.source, decodeMessage(a.bytes).msg?.type]), [[0, 'done'], [1, 'done']]);
    assert.equal(acts.at(-1)?.type, 'fail');
    assert.deepEqual(c.abort('ERR_ABORTED', 'again'), [], 'once');
  });

  it('votes as soon as a strict majority sent the same meta (2 of 3): no wait for a slow proxy, which still serves', async () => {
    const r = await runPiped({ mode: 'coded', size: 400_000, n: 3, faults: { 2: { metaDelayMs: 300 } } });
    assertByteExact(r);
    // the packets held for the vote are handled at the vote
    const votedAt = r.c.firstPacketMs;
    assert.ok(votedAt < 50 + META_QUORUM_WAIT_MS / 2, `voted at ${votedAt} ms: waited for the quorum time or the slow meta`);
    assert.ok(r.proxies[2].sent > 0, 'the late proxy was admitted');
  });

  it('6 proxies, 2 slow origin fetches: the vote comes with the 4th meta, not the 6th', async () => {
    const r = await runPiped({ mode: 'uncoded', size: 300_000, n: 6, faults: { 4: { metaDelayMs: 40 }, 5: { metaDelayMs: 80 } } });
    assertByteExact(r);
    const votedAt = r.c.firstPacketMs;
    assert.ok(votedAt < 50 + 40, `voted at ${votedAt} ms: waited for a slow meta`);
    assert.ok(r.proxies[4].sent > 0 && r.proxies[5].sent > 0, 'the late proxies were admitted');
  });

  it('a liar among the first metas: no majority agrees (2 of 4), so the vote waits META_QUORUM_WAIT_MS and outvotes it', async () => {
    const lie = (/** @type {any} */ m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);
    const r = await runPiped({ mode: 'coded', size: 400_000, n: 4, faults: { 1: { tamperMeta: lie }, 3: { metaDelayMs: 400 } } });
    assertByteExact(r);
    const firstDeliver = actionsOf(r, 'deliver')[0].t;
    assert.ok(firstDeliver >= 50 + META_QUORUM_WAIT_MS - 1, `first bytes at ${firstDeliver} ms: voted before the quorum wait with 2 of 4 agreeing`);
    assert.ok(firstDeliver < 50 + 400, `first bytes at ${firstDeliver} ms: waited for the slow meta`);
    const drops = actionsOf(r, 'drop');
    assert.deepEqual(drops.map((/** @type {any} */ d) => [d.source, d.code]), [[1, 'ERR_INTEGRITY']]);
  });

  it('quorum wait: ends at the instant its timer wakes the controller, whatever the rounding of the times', async () => {
    // metas at 2 × 53.001000000071045 ms = 106.00200000014209, where (t + 150) - t < 150 in doubles
    const delayMs = 53.001000000071045;
    const lie = (/** @type {any} */ m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);
    const r = await runPiped({ mode: 'coded', size: 400_000, n: 4, delayMs, faults: { 1: { tamperMeta: lie }, 3: { metaDelayMs: 400 } } });
    assertByteExact(r);
    const firstDeliver = actionsOf(r, 'deliver')[0].t;
    assert.ok(firstDeliver < 2 * delayMs + 400, `first bytes at ${firstDeliver} ms: the vote missed the end of its wait and came with the slow meta`);
  });

  it('quorum wait: with every meta in, the vote does not wait', async () => {
    const r = await runPiped({ mode: 'uncoded', size: 200_000, n: 3 });
    assertByteExact(r);
    const firstDeliver = actionsOf(r, 'deliver')[0].t;
    assert.ok(firstDeliver < 50 + META_QUORUM_WAIT_MS, `first bytes at ${firstDeliver} ms: the vote waited although all metas were in`);
  });

  it('quorum wait: its end is not enough without a strict majority of metas (2 of 4); the third meta brings the vote', async () => {
    // large enough that the download still runs when the fourth meta comes (~650 ms)
    const r = await runPiped({ mode: 'coded', size: 1_200_000, n: 4, faults: { 2: { metaDelayMs: 300 }, 3: { metaDelayMs: 600 } } });
    assertByteExact(r);
    const firstDeliver = actionsOf(r, 'deliver')[0].t;
    assert.ok(firstDeliver >= 50 + 300, `first bytes at ${firstDeliver} ms: voted on 2 of 4 metas`);
    assert.ok(firstDeliver < 50 + 600, `first bytes at ${firstDeliver} ms: waited for the fourth meta`);
    assert.ok(r.proxies[3].sent > 0, 'the last proxy was admitted after the vote');
  });

  it('one of two proxies never answers: no vote without a majority until it is dropped as silent (META_TIMEOUT_MS)', async () => {
    const r = await runPiped({ mode: 'uncoded', size: 50_000, n: 2, faults: { 0: { silent: true } }, maxMs: 30_000 });
    assertByteExact(r);
    assert.equal(r.proxies[0].requests, 2 + Math.floor((META_TIMEOUT_MS - REQUEST_RESEND_FIRST_MS - 1) / REQUEST_RESEND_MS),
      'its request was re-sent after REQUEST_RESEND_FIRST_MS, then every REQUEST_RESEND_MS');
    const drops = actionsOf(r, 'drop');
    assert.equal(drops.length, 1);
    assert.equal(drops[0].code, 'ERR_PROXY_SILENT');
    assert.equal(drops[0].t, META_TIMEOUT_MS);
    assert.equal(actionsOf(r, 'deliver')[0].t, META_TIMEOUT_MS, 'the vote came with the drop');
  });

  it('all proxies go silent mid-download: fails with ERR_ALL_PROXIES_FAILED after the no-progress timeout', async () => {
    const r = await runPiped({ mode: 'coded', size: 500_000, n: 2, noProgressTimeoutMs: 1000, faults: { 0: { stopAfterPackets: 20 }, 1: { stopAfterPackets: 20 } } });
    assert.equal(r.end.type, 'fail');
    assert.equal(r.end.code, 'ERR_ALL_PROXIES_FAILED');
    const drops = actionsOf(r, 'drop');
    assert.deepEqual(drops.map((d) => d.code), ['ERR_PROXY_SILENT', 'ERR_PROXY_SILENT']);
    assert.ok(r.end.t >= 1000 && r.end.t < 1200, `failed at ${r.end.t} ms`);
  });

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: a proxy that corrupts a packet is excluded (ERR_INTEGRITY) and the data stays byte-exact`, async () => {
      const r = await runPiped({ mode, size: 200_000, n: 3, faults: { 1: { corruptPacket: 5 } } });
      assertByteExact(r);
      const drops = actionsOf(r, 'drop');
      assert.equal(drops.length, 1);
      assert.equal(drops[0].source, 1);
      assert.equal(drops[0].code, 'ERR_INTEGRITY');
    });
  }

  it('a proxy that lies in its meta is excluded by the vote', async () => {
    const lie = (/** @type {any} */ m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);
    const r = await runPiped({ mode: 'coded', size: 200_000, n: 3, faults: { 2: { tamperMeta: lie } } });
    assertByteExact(r);
    const drops = actionsOf(r, 'drop');
    assert.equal(drops.length, 1);
    assert.equal(drops[0].source, 2);
    assert.equal(drops[0].code, 'ERR_INTEGRITY');
    assert.match(drops[0].message, /meta checksum/);
  });

  it('malformed datagrams are counted and warned about a few times, not fatal', async () => {
    const r = await runPiped({ mode: 'uncoded', size: 20_000, n: 2, faults: { 0: { junk: 10 } } });
    assertByteExact(r);
    assert.equal(r.c.sources[0].malformed, 10);
    assert.equal(actionsOf(r, 'warn').filter((w) => w.source === 0).length, 3);
  });

  it('feedback when packets stop: tick at wakeAt sends it feedbackMaxDelayMs after the last one', async () => {
    const c = await createDownloadController({ mode: 'uncoded', url: 'http://o/x', params: { feedbackEvery: 8, feedbackMaxDelayMs: 20 }, sourceCount: 1, downloadId: 5, seeds: [1] });
    c.connected(0, {}, 0);
    const { createSender } = await import('../index.js');
    const s = await createSender({ mode: 'uncoded', data: new Uint8Array(50_000), params: { feedbackEvery: 8 }, sourceIndex: 0, sourceCount: 1, seed: 1, downloadId: 5 });
    for (const m of s.metaMessages()) c.datagram(0, encodeMessage(m), 10);
    assert.ok(c.receiver, 'one proxy: the vote is immediate');
    const acts = c.datagram(0, encodeMessage(s.nextPacket(11)), 11);
    assert.equal(acts.filter((a) => a.type === 'send').length, 0, 'no feedback after 1 packet of 8');
    assert.equal(c.wakeAt(), 10 + 20, 'due feedbackMaxDelayMs after the last feedback (the vote)');
    assert.equal(c.tick(25).filter((a) => a.type === 'send').length, 0, 'not before');
    const fb = c.tick(30).filter((a) => a.type === 'send');
    assert.equal(fb.length, 1);
    assert.equal(fb[0].bytes[1], 5, 'a feedback message');
    s.close();
    c.close();
  });

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: the object is assembled in the buffer objectBuffer gives; a buffer of the wrong size fails the download`, async () => {
      /** @type {Uint8Array[]} */
      const given = [];
      const r = await runPiped({ mode, size: 60_001, n: 2, objectBuffer: (n) => { given.push(new Uint8Array(n)); return given[0]; } });
      assertByteExact(r);
      assert.equal(given.length, 1);
      assert.equal(r.end.data, given[0], 'complete hands out the given buffer');
      const bad = await runPiped({ mode, size: 60_001, n: 2, objectBuffer: (n) => new Uint8Array(n - 1) });
      assert.equal(bad.end?.type, 'fail');
      assert.equal(bad.end.code, 'ERR_BAD_PARAMS');
    });
  }
});
