// GF(2^8) multiply (polynomial 0x11D, the field @mutp/rlnc codes in), for re-encoding a coded
// packet from verified data: it tells which packet of a failed generation was corrupted.
import { POLYNOMIAL } from '@mutp/rlnc';

/** EXP[i] = 2^i, doubled so EXP[LOG[a] + LOG[b]] needs no modulo; LOG is its inverse. */
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= POLYNOMIAL;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
}

/**
 * Does a coded packet (coefficients then payload) equal the combination its coefficients name
 * of the generation's symbols?
 * @param {Uint8Array} codedPayload  `symbols` coefficients then P payload bytes
 * @param {Uint8Array} symbols       the verified generation, symbols × P bytes (zero-padded)
 * @param {number} count             symbols in the generation
 * @param {number} P                 bytes per symbol
 */
export function codedPacketMatches(codedPayload, symbols, count, P) {
  const out = new Uint8Array(P);
  for (let i = 0; i < count; i++) {
    const c = codedPayload[i];
    if (c === 0) continue;
    const lc = LOG[c];
    const o = i * P;
    for (let j = 0; j < P; j++) {
      const s = symbols[o + j];
      if (s !== 0) out[j] ^= EXP[lc + LOG[s]];
    }
  }
  for (let j = 0; j < P; j++) if (out[j] !== codedPayload[count + j]) return false;
  return true;
}
