// Pure-JS codec kernels: the reference the WASM kernels are checked against, and the last
// fallback where WebAssembly is missing. They take the same (memory, pointer...) arguments as
// the C exports in csrc/rlnc.c, so encoder.js and decoder.js drive both the same way.
import { MUL, INV } from './gf256.js';

/**
 * mem[dst + k] ^= c · mem[src + k] for k < n.
 * @param {Uint8Array} mem @param {number} dst @param {number} src @param {number} c @param {number} n
 */
function axpy(mem, dst, src, c, n) {
  if (c === 0) return;
  if (c === 1) {
    for (let k = 0; k < n; k++) mem[dst + k] ^= mem[src + k];
    return;
  }
  const row = c << 8;
  for (let k = 0; k < n; k++) mem[dst + k] ^= MUL[row | mem[src + k]];
}

/**
 * mem[p + k] = c · mem[p + k] for k < n.
 * @param {Uint8Array} mem @param {number} p @param {number} c @param {number} n
 */
function scale(mem, p, c, n) {
  const row = c << 8;
  for (let k = 0; k < n; k++) mem[p + k] = MUL[row | mem[p + k]];
}

/**
 * Coded symbol: mem[out .. out+size) = Σ_i mem[coeffs+i] · symbol_i, symbols stored back to back.
 * @param {Uint8Array} mem @param {number} out @param {number} symbols @param {number} coeffs
 * @param {number} g @param {number} size
 */
export function encode(mem, out, symbols, coeffs, g, size) {
  mem.fill(0, out, out + size);
  for (let i = 0; i < g; i++) axpy(mem, out, symbols + i * size, mem[coeffs + i], size);
}

/**
 * Adds the row at `row` (g coefficients, then size data bytes) to a decoder kept in reduced
 * row-echelon form: `cm` is the g×g coefficient matrix and `dm` the g×size data matrix, row p
 * holding the row whose pivot is column p; piv[p] = 1 when that row exists.
 * @param {Uint8Array} mem @param {number} cm @param {number} dm @param {number} piv
 * @param {number} row @param {number} g @param {number} size
 * @returns {number} the new pivot column, or -1 if the row was not innovative
 */
export function decode(mem, cm, dm, piv, row, g, size) {
  const rd = row + g;
  // 1. forward: remove every existing pivot; RREF rows are zero in the other pivot columns,
  //    so each factor is the row's own coefficient and one pass suffices.
  for (let j = 0; j < g; j++) {
    const f = mem[row + j];
    if (f === 0 || mem[piv + j] === 0) continue;
    axpy(mem, row, cm + j * g, f, g);
    axpy(mem, rd, dm + j * size, f, size);
  }
  let p = 0;
  while (p < g && mem[row + p] === 0) p++;
  if (p === g) return -1;
  // 2. normalise the pivot to 1.
  const c = mem[row + p];
  if (c !== 1) {
    const ic = INV[c];
    scale(mem, row, ic, g);
    scale(mem, rd, ic, size);
  }
  // 3. backward: clear column p from the other rows.
  for (let r = 0; r < g; r++) {
    if (mem[piv + r] === 0) continue;
    const f = mem[cm + r * g + p];
    if (f === 0) continue;
    axpy(mem, cm + r * g, row, f, g);
    axpy(mem, dm + r * size, rd, f, size);
  }
  mem.copyWithin(cm + p * g, row, row + g);
  mem.copyWithin(dm + p * size, rd, rd + size);
  mem[piv + p] = 1;
  return p;
}
