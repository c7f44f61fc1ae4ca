// Decoded pieces can arrive out of order (generations finish independently); the page gets
// the body strictly in order. Pieces are copied at once into fresh ArrayBuffers: the
// transport's views may point into memory it reuses, and a copy can be transferred to the
// page without detaching the transport's buffer.

const MAX_HELD_BYTES = 512 * 1024 * 1024; // ProxyClientLib's own response cap: more is a broken transport

/**
 * @param {(buf: ArrayBuffer) => void} emit   called with consecutive pieces of the body
 */
export function createInOrder(emit) {
  let next = 0;
  let held = 0;
  /** @type {Map<number, ArrayBuffer>} */
  const pending = new Map();

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
    // read lengths before emit: emit transfers the buffer, which detaches it (byteLength 0)
    next += copy.byteLength;
    emit(copy);
    for (let b = pending.get(next); b; b = pending.get(next)) {
      const n = b.byteLength;
      pending.delete(next);
      held -= n;
      next += n;
      emit(b);
    }
  }

  /**
   * The download finished: send whatever of the whole body was not sent yet.
   * @param {Uint8Array} data
   */
  function finish(data) {
    pending.clear();
    held = 0;
    if (next >= data.byteLength) return;
    const rest = next === 0 && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer
      ? data.buffer // the whole body in its own buffer: transfer it as is
      : data.slice(next).buffer;
    next = data.byteLength;
    emit(rest);
  }

  return { push, finish, sent: () => next };
}
