import assert from 'node:assert/strict';
import { createEncoder, createDecoder } from '../index.js';
import { wasmHeapStats } from '../src/wasm-backend.js';
import { ALL_IMPLS, testData } from './helpers.js';

/** @param {string} code */
const withCode = (code) => (/** @type {any} */ err) => err?.code === code;

describe('rlnc allocation-free paths: writePayloadInto / readPayloadFrom', () => {
  for (const impl of ALL_IMPLS) {
    describe(impl, () => {
      it('writePayloadInto writes the same packets as writePayload, at an offset, touching nothing else', async () => {
        const g = 12;
        const size = 37;
        const data = testData(g * size, 5);
        const a = await createEncoder({ symbols: g, symbolSize: size, seed: 9, impl, systematic: true });
        const b = await createEncoder({ symbols: g, symbolSize: size, seed: 9, impl, systematic: true });
        a.setSymbols(data);
        b.setSymbols(data);
        const offset = 7;
        for (let n = 0; n < g + 5; n++) {
          const target = new Uint8Array(offset + a.payloadSize + 3).fill(0xee);
          assert.equal(a.writePayloadInto(target, offset), a.payloadSize);
          assert.deepEqual(target.subarray(offset, offset + a.payloadSize), b.writePayload(), `packet ${n}`);
          assert.deepEqual([...target.subarray(0, offset), ...target.subarray(offset + a.payloadSize)],
            new Array(offset + 3).fill(0xee), 'bytes outside the payload untouched');
        }
        assert.equal(a.packets, b.packets);
        a.dispose();
        b.dispose();
      });

      it('writePayloadInto refuses bad targets without consuming a packet', async () => {
        const enc = await createEncoder({ symbols: 4, symbolSize: 8, seed: 3, impl });
        enc.setSymbols(testData(32));
        const room = new Uint8Array(enc.payloadSize);
        assert.throws(() => enc.writePayloadInto(/** @type {any} */ ([...room])), withCode('ERR_RLNC_BAD_INPUT'));
        assert.throws(() => enc.writePayloadInto(room, 1), withCode('ERR_RLNC_BAD_LENGTH'));
        assert.throws(() => enc.writePayloadInto(room, -1), withCode('ERR_RLNC_BAD_OFFSET'));
        assert.throws(() => enc.writePayloadInto(room, 0.5), withCode('ERR_RLNC_BAD_OFFSET'));
        assert.throws(() => enc.writePayloadInto(room, /** @type {any} */ ('0')), withCode('ERR_RLNC_BAD_OFFSET'));
        assert.equal(enc.packets, 0);
        const twin = await createEncoder({ symbols: 4, symbolSize: 8, seed: 3, impl });
        twin.setSymbols(testData(32));
        enc.writePayloadInto(room);
        assert.deepEqual(room, twin.writePayload(), 'the first packet is still the first of the stream');
        enc.dispose();
        twin.dispose();
      });

      it('readPayloadFrom decodes payloads inside larger datagrams and refuses bad ranges, state unchanged', async () => {
        const g = 10;
        const size = 50;
        const data = testData(g * size, 8);
        const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 4, impl });
        const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
        enc.setSymbols(data);
        const header = 5;
        const datagram = new Uint8Array(header + enc.payloadSize);
        enc.writePayloadInto(datagram, header);
        assert.throws(() => dec.readPayloadFrom(datagram, header + 1), withCode('ERR_RLNC_BAD_LENGTH'));
        assert.throws(() => dec.readPayloadFrom(datagram, -2), withCode('ERR_RLNC_BAD_OFFSET'));
        assert.throws(() => dec.readPayloadFrom(/** @type {any} */ (datagram.buffer), header), withCode('ERR_RLNC_BAD_INPUT'));
        assert.equal(dec.rank, 0);
        assert.equal(dec.readPayloadFrom(datagram, header), true);
        assert.equal(dec.readPayloadFrom(datagram, header), false, 'the same packet again is not innovative');
        while (!dec.isComplete()) {
          enc.writePayloadInto(datagram, header);
          dec.readPayloadFrom(datagram, header);
        }
        assert.deepEqual(dec.copySymbols(), data);
        enc.dispose();
        dec.dispose();
      });

      it('reset() empties the decoder for the next generation: rank 0, nothing known, decodes new data', async () => {
        const g = 8;
        const size = 40;
        const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
        for (const seed of [1, 2]) {
          const data = testData(g * size, 10 + seed);
          const enc = await createEncoder({ symbols: g, symbolSize: size, seed, impl, systematic: true });
          enc.setSymbols(data);
          dec.readPayload(enc.writePayload());
          assert.equal(dec.isSymbolDecoded(0), true);
          dec.reset();
          assert.equal(dec.rank, 0);
          assert.equal(dec.isSymbolDecoded(0), false);
          assert.ok(dec.symbols().every((x) => x === 0), 'no data left from before');
          while (!dec.isComplete()) dec.readPayload(enc.writePayload());
          assert.deepEqual(dec.copySymbols(), data);
          dec.reset();
          enc.dispose();
        }
        dec.dispose();
      });

      it('a payload written into inputView() and passed to readPayload() decodes (copy skipped)', async () => {
        const g = 6;
        const size = 20;
        const data = testData(g * size, 2);
        const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 6, impl });
        const dec = await createDecoder({ symbols: g, symbolSize: size, impl });
        enc.setSymbols(data);
        while (!dec.isComplete()) {
          const input = dec.inputView();
          enc.writePayloadInto(input);
          dec.readPayload(input);
        }
        assert.deepEqual(dec.copySymbols(), data);
        enc.dispose();
        dec.dispose();
      });
    });
  }

  it('writePayloadView stays correct after another codec grows the shared memory', async () => {
    const g = 8;
    const size = 64;
    const data = testData(g * size, 3);
    const enc = await createEncoder({ symbols: g, symbolSize: size, seed: 2, impl: 'simd' });
    const twin = await createEncoder({ symbols: g, symbolSize: size, seed: 2, impl: 'js' });
    enc.setSymbols(data);
    twin.setSymbols(data);
    const before = enc.writePayloadView();
    assert.deepEqual(before, twin.writePayload());
    // a decoder larger than the whole current memory forces growth
    const { memoryBytes } = await wasmHeapStats('simd');
    const big = await createDecoder({ symbols: 255, symbolSize: Math.ceil(memoryBytes / 255) + 1, impl: 'simd' });
    const after = enc.writePayloadView();
    assert.equal(before.length, 0, 'the old view was detached by growth');
    assert.deepEqual(after, twin.writePayload());
    big.dispose();
    enc.dispose();
    twin.dispose();
  });
});
