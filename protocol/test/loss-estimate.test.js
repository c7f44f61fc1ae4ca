// The controller's loss estimate (record field lossEstimate): from each source's sequence numbers,
// the fraction of the packets sent up to the highest one seen that never arrived.
import assert from 'node:assert/strict';
import { createDownloadController, createSender, encodeMessage } from '../index.js';

const DOWNLOAD_ID = 0x1055;
const PARAMS = { window: 400 };
const PACKETS = 100; // per source; the object is larger, so the download is still running

/** A controller with `n` sources and their real senders, metas delivered. */
async function setUp(/** @type {number} */ n) {
  const data = new Uint8Array(1_000_000).map((_, i) => (i * 7) & 0xff);
  const seeds = Array.from({ length: n }, (_, i) => 10 + i);
  const c = await createDownloadController({ mode: 'uncoded', url: 'http://origin.test/x', params: PARAMS, sourceCount: n, downloadId: DOWNLOAD_ID, seeds });
  const senders = await Promise.all(seeds.map((seed, i) => createSender({ mode: 'uncoded', data, params: PARAMS, sourceIndex: i, sourceCount: n, seed, downloadId: DOWNLOAD_ID })));
  for (let i = 0; i < n; i++) c.connected(i, { reused: false }, 0);
  for (let i = 0; i < n; i++) for (const m of senders[i].metaMessages({ serverFetchMs: 1 })) c.datagram(i, encodeMessage(m), 1);
  return { c, senders };
}

/** Source i sends PACKETS packets (seq 1..PACKETS); those for which `lost(seq)` never arrive. */
function send(/** @type {any} */ c, /** @type {any} */ sender, /** @type {number} */ i, /** @type {(seq: number) => boolean} */ lost) {
  for (let seq = 1; seq <= PACKETS; seq++) {
    const msg = sender.nextPacket(2);
    assert.ok(msg, `packet ${seq} allowed by the window`);
    if (!lost(seq)) c.datagram(i, encodeMessage(msg), 2);
  }
}

describe('download controller: lossEstimate', () => {
  it('is null before any packet, 0 with none lost', async () => {
    const { c, senders } = await setUp(1);
    assert.equal(c.lossEstimate(), null);
    send(c, senders[0], 0, () => false);
    assert.equal(c.lossEstimate(), 0);
    c.close();
  });

  it('every 10th packet lost: 9 of the 99 sent up to the highest seq seen (a lost last packet is not visible)', async () => {
    const { c, senders } = await setUp(1);
    send(c, senders[0], 0, (seq) => seq % 10 === 0);
    assert.equal(c.lossEstimate(), 9 / 99);
    c.close();
  });

  it('sums over sources: one loses 20 of 100, the other none → 20 / 200', async () => {
    const { c, senders } = await setUp(2);
    send(c, senders[0], 0, (seq) => seq % 5 === 1); // seq 1, 6, …, 96: 20 lost, 100 seen
    send(c, senders[1], 1, () => false);
    assert.equal(c.lossEstimate(), 20 / 200);
    c.close();
  });
});
