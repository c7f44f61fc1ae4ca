// Progressive RLNC decoder: the matrix stays in reduced row-echelon form after every packet,
// so the data is ready the moment the rank reaches g (no final elimination pass).
import { checkBytes, checkRoom } from './limits.js';
import { align } from './align.js';
import { track, untrack, disposedError } from './lifetime.js';

export class Decoder {
  /**
   * @param {import('./backend-types.js').Backend} backend
   * @param {{symbols: number, symbolSize: number}} p
   */
  constructor(backend, { symbols, symbolSize }) {
    this.impl = backend.name;
    /** Symbols in the generation (g). */
    this.symbolCount = symbols;
    this.symbolSize = symbolSize;
    /** Linearly independent packets received so far. */
    this.rank = 0;
    /** Whether the last packet given to readPayload() raised the rank. */
    this.lastInnovative = false;
    this._backend = backend;
    const g = symbols;
    // layout: coefficient matrix | data matrix | pivot flags | incoming row (coeffs ‖ data)
    this._cm = 0;
    this._dm = align(g * g);
    this._piv = this._dm + align(g * symbolSize);
    this._row = this._piv + align(g);
    /** @type {import('./backend-types.js').Arena | null} null once disposed */
    this._arena = backend.arena(this._row + g + symbolSize);
    track(this, this._arena);
  }

  /** @returns {Uint8Array} */
  _mem() {
    return this._live().mem();
  }

  /** This decoder's arena; throws once disposed. @returns {import('./backend-types.js').Arena} */
  _live() {
    if (this._arena === null) throw disposedError('decoder');
    return this._arena;
  }

  /** Bytes in one payload: `symbols` coefficients, then `symbolSize` data bytes. */
  get payloadSize() {
    return this.symbolCount + this.symbolSize;
  }

  isComplete() {
    return this.rank === this.symbolCount;
  }

  /**
   * @param {Uint8Array} payload coefficients, then symbolSize coded bytes
   * @returns {boolean} true if the packet was innovative (raised the rank)
   */
  readPayload(payload) {
    checkBytes(payload, this.payloadSize, 'payload');
    return this._read(payload, 0);
  }

  /**
   * Like readPayload(), for a payload inside a larger buffer (e.g. a datagram after its
   * header): no subarray view is created. The bytes are copied once into codec memory.
   * @param {Uint8Array} source
   * @param {number} [offset] first payload byte in `source`
   * @returns {boolean} true if the packet was innovative
   */
  readPayloadFrom(source, offset = 0) {
    checkRoom(source, offset, this.payloadSize, 'payload');
    return this._read(source, offset);
  }

  /** @param {Uint8Array} src @param {number} offset */
  _read(src, offset) {
    const mem = this._mem();
    const start = this._live().base + this._row;
    // a payload already written into inputView() needs no copy
    if (src.buffer !== mem.buffer || src.byteOffset + offset !== start) {
      const n = this.payloadSize;
      if (offset === 0 && src.length === n) mem.set(src, start);
      else mem.set(src.subarray(offset, offset + n), start);
    }
    return this.readInput();
  }

  /**
   * Zero-copy input: a view of the decoder's incoming-row buffer. Write one payload into it,
   * then call readInput(). Invalid after dispose() or memory growth.
   * @returns {Uint8Array}
   */
  inputView() {
    const mem = this._mem();
    const start = this._live().base + this._row;
    return mem.subarray(start, start + this.payloadSize);
  }

  /** Decodes the payload previously written into inputView(). @returns {boolean} innovative */
  readInput() {
    const mem = this._mem();
    if (this.rank === this.symbolCount) {
      this.lastInnovative = false;
      return false;
    }
    const b = this._live().base;
    const p = this._backend.decode(
      mem, b + this._cm, b + this._dm, b + this._piv, b + this._row, this.symbolCount, this.symbolSize);
    this.lastInnovative = p >= 0;
    if (this.lastInnovative) this.rank++;
    return this.lastInnovative;
  }

  /**
   * Whether symbol i is already known (its row is a unit vector), e.g. from a systematic packet.
   * @param {number} i
   */
  isSymbolDecoded(i) {
    const mem = this._mem();
    const g = this.symbolCount;
    if (!Number.isInteger(i) || i < 0 || i >= g) return false;
    const b = this._live().base;
    if (mem[b + this._piv + i] === 0) return false;
    const row = b + this._cm + i * g;
    for (let j = 0; j < g; j++) if (j !== i && mem[row + j] !== 0) return false;
    return true;
  }

  /**
   * Zero-copy view of the decoded data (symbols·symbolSize bytes), meaningful once complete.
   * Invalid after dispose() or memory growth.
   * @returns {Uint8Array}
   */
  symbols() {
    const mem = this._mem();
    const start = this._live().base + this._dm;
    return mem.subarray(start, start + this.symbolCount * this.symbolSize);
  }

  /** @returns {Uint8Array} a copy of the decoded data; throws unless complete */
  copySymbols() {
    if (!this.isComplete()) {
      const err = new Error(`decoder incomplete: rank ${this.rank} of ${this.symbolCount}`);
      /** @type {any} */ (err).code = 'ERR_RLNC_INCOMPLETE';
      throw err;
    }
    return this.symbols().slice();
  }

  /**
   * Empties the decoder for the next generation of the same shape, keeping its memory: cheaper
   * than dispose() + createDecoder() per generation (no allocation, no await).
   */
  reset() {
    const mem = this._mem();
    const b = this._live().base;
    mem.fill(0, b + this._cm, b + this._row); // coefficient matrix, data matrix, pivot flags
    this.rank = 0;
    this.lastInnovative = false;
  }

  /** Returns this decoder's memory to the shared heap; the decoder is unusable afterwards. */
  dispose() {
    if (this._arena === null) return;
    untrack(this);
    this._arena.free();
    this._arena = null;
  }
}
