// Decoded pieces can arrive out of order (generations finish independently); the page gets
// the body strictly in order. Pieces are copied at once into fresh ArrayBuffers: the
// transport's views may point into memory it reuses, and a copy can be transferred to the
// page without detaching the transport's buffer. The in-order prefix goes out in batches of at
// least `batchBytes`: each buffer emitted becomes one post to the page, which crosses into the
// page's process and costs a task on the player's thread, and Uncoded MUTP delivers one packet
// (1100 bytes) at a time.

const MAX_HELD_BYTES = 512 * 1024 * 1024; // ProxyClientLib's own response cap: more is a broken transport

/**
 * @param {(buf: ArrayBuffer) => void} emit   called with consecutive pieces of the body
 * @param {{batchBytes?: number}} [o]  gather the in-order prefix until this many bytes (0: emit at once
 *   what each piece puts in order, as one buffer)
 */
export function createInOrder(emit, { batchBytes = 0 } = {}) {
  let next = 0;
  let held = 0;
  /** @type {Map<number, ArrayBuffer>} */
  const pending = new Map();
  /** @type {ArrayBuffer[]} in order, not emitted yet */
  let batch = [];
  let batchLength = 0;

  /** Emit the gathered prefix as one buffer. */
  function flush() {
    if (batchLength === 0) return;
    let one = batch[0];
    if (batch.length > 1) {
      const joined = new Uint8Array(batchLength);
      let at = 0;
      for (const b of batch) {
        joined.set(new Uint8Array(b), at);
        at += b.byteLength;
      }
      one = joined.buffer;
    }
    batch = [];
    batchLength = 0;
    emit(one);
  }

  /** @param {ArrayBuffer} buf the next in-order piece */
  function gather(buf) {
    // lengths are read before emit: emit transfers the buffer, which detaches it (byteLength 0)
    next += buf.byteLength;
    batch.push(buf);
    batchLength += buf.byteLength;
  }

  /** @param {number} offset @param {Uint8Array} bytes */
  function push(offset, bytes) {
    if (!Number.isSafeInteger(offset) || offset < next || bytes.byteLength === 0 || pending.has(offset)) return; // duplicate or already sent
    const copy = bytes.slice().buffer;
    if (offset > next) {
      held += copy.byteLength;
      if (held > MAX_HELD_BYTES) throw new RangeError('too many out-of-order bytes held');
      pending.set(offset, copy);
      return;
    }
    gather(copy);
    for (let b = pending.get(next); b; b = pending.get(next)) {
      pending.delete(next);
      held -= b.byteLength;
      gather(b);
    }
    if (batchLength >= batchBytes) flush();
  }

  /**
   * The download finished: send whatever of the whole body was not sent yet.
   * @param {Uint8Array} data
   */
  function finish(data) {
    pending.clear();
    held = 0;
    flush();
    if (next >= data.byteLength) return;
    const rest = next === 0 && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer
      ? data.buffer // the whole body in its own buffer: transfer it as is
      : data.slice(next).buffer;
    next = data.byteLength;
    emit(rest);
  }

  /** bytes of the body in order so far (emitted, or gathered for the next batch) */
  return { push, finish, flush, sent: () => next };
}
