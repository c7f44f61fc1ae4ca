// Integrity against pollution (corrupt packets, lying metas) in the sans-IO core: corrupted packets are refused
// (uncoded) or make their generation fail its checksum (coded), the download still completes
// byte-exact, and the corrupting source is named — never an honest one.
import assert from 'node:assert/strict';
import { runTransfer } from './lossy-link.js';
import { MSG, DATA_HEADER_BYTES } from '../index.js';

/** Flip one payload byte of `share` of the data datagrams of source `bad`. @param {number} bad @param {number} share */
function corrupt(bad, share) {
  let corrupted = 0;
  const tamper = (/** @type {Uint8Array} */ bytes, /** @type {number} */ src, /** @type {() => number} */ rand) => {
    if (src !== bad || (bytes[1] !== MSG.coded && bytes[1] !== MSG.data) || rand() >= share) return bytes;
    const b = bytes.slice();
    b[b.length - 1 - Math.floor(rand() * (b.length - DATA_HEADER_BYTES - 30))] ^= 0x5a;
    corrupted++;
    return b;
  };
  return { tamper, count: () => corrupted };
}

/** @param {any} r @param {number} bad */
function assertCulprit(r, bad) {
  assert.equal(r.complete, true, 'download completes');
  assert.deepEqual(r.receiver.data(), r.data, 'byte-exact');
  const per = r.receiver.counts().perSource;
  assert.ok(per[bad].badPackets > 0, 'the corrupting source is blamed');
  for (let j = 0; j < per.length; j++) if (j !== bad) assert.equal(per[j].badPackets, 0, `honest source ${j} is not blamed`);
  assert.ok(r.receiver.counts().integrityFailures > 0);
}

describe('integrity: polluted packets in the protocol core', function () {
  this.timeout(60000);

  it('coded, one source corrupts 1% of its packets: generations fail, are re-sent, culprit named', async () => {
    const c = corrupt(1, 0.01);
    const r = await runTransfer({ mode: 'coded', size: 1_500_000, n: 4, seed: 3, integrity: true, tamper: c.tamper });
    assert.ok(c.count() > 0, 'the test corrupted something');
    assertCulprit(r, 1);
    const events = r.receiver.pollIntegrity();
    assert.ok(events.some((/** @type {any} */ e) => e.kind === 'unit-failed'));
    assert.ok(events.every((/** @type {any} */ e) => e.kind !== 'bad-packet' || e.source === 1));
  });

  it('coded, one source corrupts every packet: decoding without it finds it', async () => {
    const c = corrupt(2, 1);
    const r = await runTransfer({ mode: 'coded', size: 300_000, n: 4, seed: 5, integrity: true, tamper: c.tamper });
    assertCulprit(r, 2);
  });

  it('coded without verify (simulator path): a corrupted packet silently corrupts the object', async () => {
    const c = corrupt(1, 0.05);
    const r = await runTransfer({ mode: 'coded', size: 300_000, n: 4, seed: 3, tamper: c.tamper });
    assert.ok(c.count() > 0);
    assert.notDeepEqual(r.receiver.data(), r.data, 'the pollution attack works when nothing is verified');
  });

  it('uncoded, one source corrupts 1%: each bad packet is refused, re-sent, and blamed on its source', async () => {
    const c = corrupt(0, 0.01);
    const r = await runTransfer({ mode: 'uncoded', size: 1_500_000, n: 4, seed: 4, integrity: true, tamper: c.tamper });
    assert.ok(c.count() > 0);
    assertCulprit(r, 0);
    // a corrupted copy of a packet already received is a duplicate, never looked at
    assert.ok(r.receiver.counts().perSource[0].badPackets <= c.count());
  });

  it('with 5% loss as well, coded completes byte-exact', async () => {
    const c = corrupt(3, 0.02);
    const r = await runTransfer({ mode: 'coded', size: 500_000, n: 4, seed: 8, loss: 0.05, integrity: true, tamper: c.tamper });
    assertCulprit(r, 3);
  });
});
