// sender.nextDatagram(now) is the allocation-light twin of encodeMessage(sender.nextPacket(now)):
// two senders built alike must produce the very same bytes, packet after packet.
import assert from 'node:assert/strict';
import { createSender, encodeMessage, decodeMessage, reusedDatagrams } from '../index.js';

/** @param {number} n @param {number} seed */
function objectBytes(n, seed) {
  const b = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; b[i] = x >>> 24; }
  return b;
}

for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
  describe(`${mode} sender.nextDatagram`, () => {
    for (const sourceCount of [1, 2]) it(`N=${sourceCount}: gives the bytes encodeMessage(nextPacket()) gives, short last packet included`, async () => {
      const data = objectBytes(24 * 1100 * 2 + 333, 7); // last generation and last packet short
      // uncoded: source 0 owns the short last packet (a helper takes others' packets only after feedback)
      const opts = { mode, data, sourceIndex: mode === 'uncoded' ? 0 : sourceCount - 1, sourceCount, seed: 99, downloadId: 0xabcdef01, params: { window: 96 } };
      const a = await createSender(opts);
      const b = await createSender(opts);
      let packets = 0;
      let sawLast = false;
      for (let t = 0; t < 200; t++) {
        const msg = a.nextPacket(t);
        const bytes = b.nextDatagram(t);
        if (msg === null) { assert.equal(bytes, null, `packet ${t}: one sender had nothing`); break; }
        assert.ok(bytes, `packet ${t}: nextDatagram returned null`);
        assert.deepEqual(bytes, encodeMessage(msg), `packet ${t} differs`);
        const d = decodeMessage(bytes);
        assert.ok(d.ok && d.msg.type === (mode === 'coded' ? 'coded' : 'data') && d.msg.seq === t + 1);
        const m = /** @type {any} */ (d.msg); // data or coded, by mode
        if (mode === 'coded' ? m.generation === 2 : m.index === 48) sawLast = true;
        packets++;
      }
      assert.ok(packets >= 24, `only ${packets} packets compared`);
      assert.ok(sawLast, 'the short last packet/generation was never compared');
      assert.deepEqual(a.stats, b.stats);
      a.close(); b.close();
    });
    it('writes into the buffer alloc() gives, every byte of it, and the bytes stay the same', async () => {
      const data = objectBytes(24 * 1100 * 2 + 333, 7);
      const opts = { mode, data, sourceIndex: 1, sourceCount: 2, seed: 5, downloadId: 0x1234, params: { window: 96 } };
      const a = await createSender(opts);
      const b = await createSender(opts);
      const slab = new Uint8Array(1 << 20).fill(0xa5); // not zeroed: each byte must be written
      let used = 0;
      /** @param {number} n */
      const alloc = (n) => { const v = slab.subarray(used, used + n); used += n; return v; };
      for (let t = 0; t < 60; t++) {
        const msg = a.nextPacket(t);
        const bytes = b.nextDatagram(t, alloc);
        if (msg === null) { assert.equal(bytes, null); break; }
        assert.ok(bytes && bytes.buffer === slab.buffer, `packet ${t}: not in the given buffer`);
        assert.equal(bytes.byteOffset + bytes.length, used, `packet ${t}: not the buffer alloc() gave`);
        assert.deepEqual(bytes, encodeMessage(msg), `packet ${t} differs`);
      }
      a.close(); b.close();
    });
    it('with reusedDatagrams(), every datagram of a size is written into one buffer, each the bytes it should be', async () => {
      const data = objectBytes(24 * 1100 * 2 + 333, 7); // the short last packet/generation: a second size
      const opts = { mode, data, sourceIndex: mode === 'uncoded' ? 0 : 1, sourceCount: 2, seed: 5, downloadId: 0x1234, params: { window: 96 } };
      const a = await createSender(opts);
      const b = await createSender(opts);
      const alloc = reusedDatagrams();
      /** @type {Map<number, ArrayBufferLike>} */
      const buffers = new Map();
      for (let t = 0; t < 200; t++) {
        const msg = a.nextPacket(t);
        const bytes = b.nextDatagram(t, alloc);
        if (msg === null) { assert.equal(bytes, null); break; }
        assert.ok(bytes);
        const seen = buffers.get(bytes.length);
        if (seen) assert.equal(bytes.buffer, seen, `packet ${t}: a new buffer for a size seen before`);
        else buffers.set(bytes.length, bytes.buffer);
        assert.deepEqual(bytes, encodeMessage(msg), `packet ${t} differs`);
      }
      assert.equal(buffers.size, 2, 'the full and the short last datagram sizes');
      a.close(); b.close();
    });
  });
}
