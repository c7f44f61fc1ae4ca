// Coefficient-only decoding: the rank of the received coefficient vectors, without the payload
// arithmetic. A packet raises the rank exactly when the full decoder calls it innovative
// (innovation depends on the coefficients alone), at about g/(g+symbolSize) of the cost; for
// callers that need the decisions, not the bytes (e.g. a simulator).
import { MUL, INV } from './gf256.js';
import { checkShape, checkRoom } from './limits.js';

export class RankTracker {
  /** @param {number} symbols g, as for a decoder (1..MAX_SYMBOLS) */
  constructor(symbols) {
    checkShape({ symbols, symbolSize: 1 });
    this.symbolCount = symbols;
    /** Linearly independent vectors added so far. */
    this.rank = 0;
    // row c (when pivot[c]) has a 1 at column c and zeros before it
    this._rows = new Uint8Array(symbols * symbols);
    this._pivot = new Uint8Array(symbols);
    this._v = new Uint8Array(symbols);
  }

  isComplete() {
    return this.rank === this.symbolCount;
  }

  /**
   * @param {Uint8Array} source holds g coefficients at `offset` (e.g. a coded payload)
   * @param {number} [offset]
   * @returns {boolean} true if the vector raised the rank (the decoder's "innovative")
   */
  add(source, offset = 0) {
    const g = this.symbolCount;
    checkRoom(source, offset, g, 'coefficients');
    if (this.rank === g) return false;
    const v = this._v;
    const rows = this._rows;
    const pivot = this._pivot;
    for (let i = 0; i < g; i++) v[i] = source[offset + i];
    let lead = -1;
    for (let c = 0; c < g; c++) {
      const f = v[c];
      if (f === 0) continue;
      if (pivot[c] === 0) {
        if (lead < 0) lead = c;
        continue;
      }
      // v -= f·row c; entry c becomes 0 (row c has a 1 there), so the pass starts after it
      v[c] = 0;
      const m = f << 8;
      const r = c * g;
      for (let j = c + 1; j < g; j++) v[j] ^= MUL[m | rows[r + j]];
    }
    if (lead < 0) return false;
    // entries before `lead` are zero now: earlier non-pivot columns held zeros, pivot ones were cleared
    const s = INV[v[lead]] << 8;
    const r = lead * g;
    for (let j = 0; j < lead; j++) rows[r + j] = 0;
    for (let j = lead; j < g; j++) rows[r + j] = MUL[s | v[j]];
    pivot[lead] = 1;
    this.rank++;
    return true;
  }

  /** Empties the tracker for the next generation of the same g. */
  reset() {
    this._rows.fill(0);
    this._pivot.fill(0);
    this.rank = 0;
  }
}
