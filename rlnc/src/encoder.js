// RLNC encoder for one generation: coded packet = coefficients ‖ Σ cᵢ·symbolᵢ.
import { checkBytes, checkRoom } from './limits.js';
import { align } from './align.js';
import { CoefficientGenerator, STATE_BYTES } from './coefficients.js';
import { pooledCopy } from './payload-pool.js';
import { track, untrack, disposedError } from './lifetime.js';

export class Encoder {
  /**
   * @param {import('./backend-types.js').Backend} backend
   * @param {{symbols: number, symbolSize: number, seed: number, systematic: boolean}} p
   */
  constructor(backend, { symbols, symbolSize, seed, systematic }) {
    this.impl = backend.name;
    /** Symbols in the generation (g). */
    this.symbolCount = symbols;
    this.symbolSize = symbolSize;
    this.seed = seed;
    this.systematic = systematic;
    /** Packets written so far. */
    this.packets = 0;
    this._backend = backend;
    this._symbolsSet = false;
    // layout: symbols | output slot (coefficients ‖ coded bytes) | coefficient generator state
    this._payloadOffset = align(symbols * symbolSize);
    this._stateOffset = this._payloadOffset + align(symbols + symbolSize);
    /** @type {import('./backend-types.js').Arena | null} null once disposed */
    this._arena = backend.arena(this._stateOffset + STATE_BYTES);
    new CoefficientGenerator(seed).save(this._arena.mem(), this._live().base + this._stateOffset);
    /** @type {Uint8Array | null} cached view of the output slot */
    this._view = null;
    track(this, this._arena);
  }

  /** @returns {Uint8Array} */
  _mem() {
    return this._live().mem();
  }

  /** This encoder's arena; throws once disposed. @returns {import('./backend-types.js').Arena} */
  _live() {
    if (this._arena === null) throw disposedError('encoder');
    return this._arena;
  }

  /** Bytes in one payload: `symbols` coefficients, then `symbolSize` data bytes. */
  get payloadSize() {
    return this.symbolCount + this.symbolSize;
  }

  /** @param {Uint8Array} data symbols·symbolSize bytes, symbol i at i·symbolSize */
  setSymbols(data) {
    const mem = this._mem();
    checkBytes(data, this.symbolCount * this.symbolSize, 'symbols data');
    mem.set(data, this._live().base);
    this._symbolsSet = true;
  }

  /**
   * Zero-copy alternative to setSymbols: a view of the encoder's symbol storage to fill in
   * place. Valid until dispose() or until another encoder/decoder grows the shared memory.
   * @returns {Uint8Array}
   */
  symbolsView() {
    const mem = this._mem();
    this._symbolsSet = true;
    const base = this._live().base;
    return mem.subarray(base, base + this.symbolCount * this.symbolSize);
  }

  /**
   * Writes the next packet into encoder memory and returns a view of it (no copy). The view
   * is overwritten by the next write and invalid after dispose() or memory growth.
   * @returns {Uint8Array}
   */
  writePayloadView() {
    return this._writeNext();
  }

  /**
   * Allocation-free write: the next packet (coefficients, then coded bytes) goes straight into
   * `target` at `offset`, e.g. after a datagram header. Same packet as writePayload().
   * @param {Uint8Array} target
   * @param {number} [offset] first byte to write; target needs payloadSize bytes from there
   * @returns {number} bytes written (payloadSize)
   */
  writePayloadInto(target, offset = 0) {
    checkRoom(target, offset, this.payloadSize, 'target');
    target.set(this._writeNext(), offset);
    return this.payloadSize;
  }

  /**
   * @returns {Uint8Array} a new coded packet (coefficients, then symbolSize coded bytes). Its bytes
   *   are its own, but its `.buffer` may hold other packets too (pooled): never transfer it.
   */
  writePayload() {
    return pooledCopy(this._writeNext());
  }

  /**
   * Computes the next packet into the output slot of encoder memory.
   * @returns {Uint8Array} the output slot (the same view each time, re-created after memory growth)
   */
  _writeNext() {
    const mem = this._mem();
    if (!this._symbolsSet) {
      const err = new Error('setSymbols() must be called before writePayload()');
      /** @type {any} */ (err).code = 'ERR_RLNC_NO_SYMBOLS';
      throw err;
    }
    const g = this.symbolCount;
    const size = this.symbolSize;
    const base = this._live().base;
    const out = base + this._payloadOffset;
    if (this.systematic && this.packets < g) {
      const i = this.packets;
      mem.fill(0, out, out + g);
      mem[out + i] = 1;
      mem.copyWithin(out + g, base + i * size, base + (i + 1) * size);
    } else {
      this._backend.encodeNext(mem, out, base, base + this._stateOffset, g, size);
    }
    this.packets++;
    let view = this._view;
    if (view === null || view.length === 0) { // length 0: detached by memory growth
      view = this._view = mem.subarray(out, out + g + size);
    }
    return view;
  }

  /** Returns this encoder's memory to the shared heap; the encoder is unusable afterwards. */
  dispose() {
    if (this._arena === null) return;
    untrack(this);
    this._arena.free();
    this._arena = null;
    this._view = null;
  }
}
