// The frame's in-order reassembler: out-of-order decoded pieces reach the page as one
// byte-exact, in-order body, even though every emitted buffer is transferred (detached).
import assert from 'node:assert/strict';
import { createInOrder } from '../src/frame/in-order.js';

/** Emit like the frame does: postMessage with transfer detaches the buffer. */
function collector() {
  /** @type {Uint8Array[]} */
  const got = [];
  const emit = (/** @type {ArrayBuffer} */ buf) => got.push(new Uint8Array(structuredClone(buf, { transfer: [buf] })));
  const body = () => Buffer.concat(got);
  return { got, emit, body };
}

function object(n) {
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) a[i] = (i * 131 + (i >> 8)) & 0xff;
  return a;
}

describe('extension frame: in-order reassembly', () => {
  it('streams the in-order prefix as soon as it exists, out-of-order pieces later, byte-exact', () => {
    const data = object(10_000);
    const c = collector();
    const order = createInOrder(c.emit);
    order.push(3000, data.subarray(3000, 6000));
    assert.equal(c.got.length, 0, 'nothing before the first piece');
    order.push(0, data.subarray(0, 3000));
    assert.equal(order.sent(), 6000);
    assert.deepEqual(c.got.map((g) => g.length), [6000], 'the piece and the one it unblocked, in one buffer');
    order.push(6000, data.subarray(6000, 10_000));
    order.finish(data);
    assert.deepEqual(c.body(), Buffer.from(data));
  });

  it('copies pieces at once: the transport may reuse the memory behind its views', () => {
    const data = object(4096);
    const scratch = new Uint8Array(2048);
    const c = collector();
    const order = createInOrder(c.emit);
    scratch.set(data.subarray(2048));
    order.push(2048, scratch); // held: not yet in order
    scratch.fill(0xee); // the transport reuses its buffer
    scratch.set(data.subarray(0, 2048));
    order.push(0, scratch);
    scratch.fill(0xee);
    assert.deepEqual(c.body(), Buffer.from(data));
  });

  it('ignores duplicates, empty pieces and bad offsets; finish sends only what is missing', () => {
    const data = object(5000);
    const c = collector();
    const order = createInOrder(c.emit);
    order.push(0, data.subarray(0, 1000));
    order.push(0, data.subarray(0, 1000)); // duplicate
    order.push(2000, data.subarray(2000, 3000));
    order.push(2000, data.subarray(2000, 3000)); // duplicate while held
    order.push(-5, data.subarray(0, 10));
    order.push(1.5, data.subarray(0, 10));
    order.push(4000, new Uint8Array(0));
    order.finish(data);
    assert.deepEqual(c.body(), Buffer.from(data));
    order.finish(data); // twice: nothing more
    assert.deepEqual(c.body(), Buffer.from(data));
  });

  it('transfers the whole body as is when nothing was streamed', () => {
    const data = object(1234);
    const sent = [];
    const order = createInOrder((b) => sent.push(b));
    order.finish(data);
    assert.equal(sent.length, 1);
    assert.equal(sent[0], data.buffer);
  });

  it('with batchBytes, gathers the in-order prefix into posts of at least that many bytes; flush and finish send the rest', () => {
    const data = object(10_000);
    const c = collector();
    const order = createInOrder(c.emit, { batchBytes: 4000 });
    for (let at = 0; at < 3300; at += 1100) order.push(at, data.subarray(at, at + 1100)); // 3 packets: under the batch
    assert.equal(c.got.length, 0, 'nothing posted below batchBytes');
    assert.equal(order.sent(), 3300, 'the gathered bytes count as in order');
    order.push(5500, data.subarray(5500, 6600)); // out of order: held, not gathered
    order.push(3300, data.subarray(3300, 5500)); // completes 0..6600
    assert.deepEqual(c.got.map((g) => g.length), [6600], 'one post for the whole prefix');
    order.push(6600, data.subarray(6600, 7000));
    order.flush();
    assert.deepEqual(c.got.map((g) => g.length), [6600, 400], 'flush posts what was gathered');
    order.flush();
    assert.equal(c.got.length, 2, 'flush with nothing gathered posts nothing');
    order.push(7000, data.subarray(7000, 8000));
    order.finish(data);
    assert.deepEqual(c.got.map((g) => g.length), [6600, 400, 1000, 2000]);
    assert.deepEqual(c.body(), Buffer.from(data));
  });
});
