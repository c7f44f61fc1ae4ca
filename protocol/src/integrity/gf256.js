// GF(2^8) multiply (polynomial 0x11D, the field @mutp/rlnc codes in), for re-encoding a coded
// packet from verified data: it tells which packet of a failed generation was corrupted.
import { GF256_MUL } from '@mutp/rlnc'; // GF256_MUL[a * 256 + b] = a·b, the codec's own table

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
    const row = c << 8;
    const o = i * P;
    for (let j = 0; j < P; j++) out[j] ^= GF256_MUL[row | symbols[o + j]];
  }
  for (let j = 0; j < P; j++) if (out[j] !== codedPayload[count + j]) return false;
  return true;
}
