// Coded generations' checksums taken off the thread (hashOffThread, a browser's WebCrypto): the
// controller asks for each decoded generation's checksum with a 'hash' action and holds the
// generation until hashed() brings it. Byte-exact, nothing delivered before its checksum, and
// corrupt or lying proxies named as when the checksum is taken inline.
import assert from 'node:assert/strict';
import { runPiped, assertByteExact, actionsOf } from './piped-download.js';
import { createRng, decodeMessage } from '../index.js';

/** A generation's checksum comes back 0-3 ms after it was asked for, so they come out of order; each asking is logged. */
function slowHashes(seed = 7) {
  const rand = createRng(seed);
  /** @type {{ unit: number, ms: number }[]} */
  const asked = [];
  return { asked, hashMs: (/** @type {number} */ unit) => { const ms = rand() * 3; asked.push({ unit, ms }); return ms; } };
}

/**
 * Every delivered generation's checksum had come back by the time it was delivered.
 * @param {any} r @param {{ unit: number, ms: number }[]} asked
 */
function assertDeliveredAfterHash(r, asked) {
  const unitBytes = r.c.meta.payloadSize * r.c.meta.generationSize;
  const hashes = actionsOf(r, 'hash');
  assert.equal(hashes.length, asked.length);
  /** @type {Map<number, number>} unit → when its (last) checksum came back */
  const back = new Map();
  hashes.forEach((/** @type {any} */ a, /** @type {number} */ i) => back.set(a.unit, a.t + asked[i].ms));
  for (const d of actionsOf(r, 'deliver')) {
    for (const ch of d.chunks) {
      const k = ch.offset / unitBytes;
      assert.ok(back.has(k) && /** @type {number} */ (back.get(k)) <= d.t, `generation ${k} delivered at ${d.t} ms, its checksum back at ${back.get(k)}`);
    }
  }
}

describe('download controller: coded checksums taken off the thread', () => {
  it('4 proxies, checksums back 0-3 ms later and out of order: byte-exact, each generation hashed once, none delivered before its checksum', async () => {
    const h = slowHashes();
    const r = await runPiped({ mode: 'coded', size: 700_001, n: 4, hashMs: h.hashMs });
    assertByteExact(r);
    assertDeliveredAfterHash(r, h.asked);
    assert.equal(actionsOf(r, 'hash').length, r.c.meta.generationCount, 'one checksum per generation');
    assert.ok(actionsOf(r, 'hash').every((/** @type {any} */ a) => a.bytes.length > 0 && a.bytes.length <= r.c.meta.payloadSize * r.c.meta.generationSize));
    assert.equal(actionsOf(r, 'drop').length, 0);
  });

  it('a proxy that corrupts a packet is excluded (ERR_INTEGRITY), the failed generation hashed again once decoded anew', async () => {
    const h = slowHashes(3);
    const r = await runPiped({ mode: 'coded', size: 200_000, n: 3, faults: { 1: { corruptPacket: 5 } }, hashMs: h.hashMs });
    assertByteExact(r);
    assertDeliveredAfterHash(r, h.asked);
    const drops = actionsOf(r, 'drop');
    assert.deepEqual(drops.map((/** @type {any} */ d) => [d.source, d.code]), [[1, 'ERR_INTEGRITY']]);
    assert.ok(actionsOf(r, 'hash').length > r.c.meta.generationCount, 'the failed decode and the good one were both hashed');
  });

  it('a proxy that corrupts every packet is found by decoding without each source in turn (checked at once, inline)', async () => {
    const r = await runPiped({ mode: 'coded', size: 150_000, n: 4, faults: { 2: { corruptAll: true } }, hashMs: () => 1 });
    assertByteExact(r);
    assert.deepEqual(actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]), [[2, 'ERR_INTEGRITY']]);
  });

  it('a proxy that lies in its meta is excluded by the vote', async () => {
    const lie = (/** @type {any} */ m) => (m.checksums ? { ...m, checksums: { ...m.checksums, values: m.checksums.values.map((/** @type {number} */ v) => v ^ 1) } } : m);
    const h = slowHashes(5);
    const r = await runPiped({ mode: 'coded', size: 200_000, n: 3, faults: { 2: { tamperMeta: lie } }, hashMs: h.hashMs });
    assertByteExact(r);
    assertDeliveredAfterHash(r, h.asked);
    assert.deepEqual(actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]), [[2, 'ERR_INTEGRITY']]);
  });

  it('a checksum that never comes back: its generation is never delivered and the download does not complete', async () => {
    const r = await runPiped({ mode: 'coded', size: 200_000, n: 3, noProgressTimeoutMs: 1000, maxMs: 5000, hashMs: (unit) => (unit === 2 ? null : 1) });
    assert.notEqual(r.end?.type, 'complete');
    const unitBytes = r.c.meta.payloadSize * r.c.meta.generationSize;
    const delivered = actionsOf(r, 'deliver').flatMap((/** @type {any} */ d) => d.chunks.map((/** @type {any} */ ch) => ch.offset / unitBytes));
    assert.ok(delivered.includes(1), 'the generations before it were delivered');
    assert.ok(!delivered.includes(2), 'the generation without its checksum was delivered');
  });

  it('proxies that do not say they keep held generations (older ones): every checksum is taken inline', async () => {
    const older = (/** @type {any} */ m) => ({ ...m, keepsHeld: false });
    const r = await runPiped({ mode: 'coded', size: 200_000, n: 3, faults: { 0: { tamperMeta: older }, 1: { tamperMeta: older, corruptPacket: 5 }, 2: { tamperMeta: older } }, hashMs: () => 1 });
    assertByteExact(r);
    assert.equal(actionsOf(r, 'hash').length, 0);
    assert.deepEqual(actionsOf(r, 'drop').map((/** @type {any} */ d) => [d.source, d.code]), [[1, 'ERR_INTEGRITY']]);
  });

  it('the requests ask whether the proxies keep held generations (holds), and only with hashOffThread', async () => {
    const asks = async (/** @type {any} */ o) => (await runPiped({ mode: 'coded', size: 50_000, n: 2, ...o })).actions
      .filter((/** @type {any} */ a) => a.type === 'send').map((/** @type {any} */ a) => decodeMessage(a.bytes).msg).filter((/** @type {any} */ m) => m.type === 'request');
    assert.ok((await asks({ hashMs: () => 1 })).every((/** @type {any} */ m) => m.holds === true));
    assert.ok((await asks({})).every((/** @type {any} */ m) => m.holds === false));
  });

  it('uncoded ignores hashOffThread: its packets are checked inline, no hash is asked for', async () => {
    const r = await runPiped({ mode: 'uncoded', size: 100_000, n: 3, hashMs: () => 1 });
    assertByteExact(r);
    assert.equal(actionsOf(r, 'hash').length, 0);
  });
});
