// An origin response body as it comes: the buffer is the whole object's size (the response's
// Content-Length), filled from its start. A proxy serves what is there while the rest comes
// (streamed MUTP), and the finished buffer is the cached copy (no copy at the end).

export class GrowingBody {
  /**
   * @param {number} size  bytes the response said it holds
   * @param {{ contentType: string, range: { start: number, end: number } | null, total: number | null }} info
   */
  constructor(size, info) {
    this.bytes = new Uint8Array(size);
    /** bytes there, from the start */
    this.filled = 0;
    this.contentType = info.contentType;
    this.range = info.range;
    this.total = info.total;
    /** @type {Set<(filled: number) => void>} */
    this.listeners = new Set();
  }

  /** @param {Uint8Array} chunk @returns {boolean} false: more bytes than the response said (nothing taken) */
  append(chunk) {
    if (this.filled + chunk.length > this.bytes.length) return false;
    this.bytes.set(chunk, this.filled);
    this.filled += chunk.length;
    for (const l of this.listeners) l(this.filled);
    return true;
  }

  get complete() {
    return this.filled === this.bytes.length;
  }

  /** Call `fn(filled)` after each chunk. @param {(filled: number) => void} fn @returns {() => void} unsubscribe */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
