// SHA-256 (FIPS 180-4) in plain JavaScript, synchronous: the browser's WebCrypto digest is
// async and the sans-IO receiver must verify a generation inside handlePacket(). Node uses
// node:crypto instead (sha256.node.js, chosen by the "#sha256" import condition). Callers that
// can wait (the HTTP modes' block checks) take WebCrypto's `sha256Async` below where the page has it.
// Tested against the FIPS/NIST vectors and node:crypto (protocol/test/integrity-sha256.test.js).

/** Round constants: first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** Initial hash value: first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** Message schedule, state and the last blocks' padding, reused: the function is synchronous and not re-entrant. */
const W = new Int32Array(64);
const H = new Int32Array(8);
const TAIL = new Uint8Array(128);

/**
 * Compresses the 64-byte blocks of b from o up to end (exclusive; end − o a multiple of 64) into
 * H. The state stays in locals across blocks and Σ/Ch/Maj are written out in place: about 1.2×
 * the speed of a per-block function with helper expressions (V8, 1 MiB and 1100-byte inputs).
 * @param {Uint8Array} b @param {number} o @param {number} end
 */
function compressBlocks(b, o, end) {
  let h0 = H[0], h1 = H[1], h2 = H[2], h3 = H[3], h4 = H[4], h5 = H[5], h6 = H[6], h7 = H[7];
  const w = W;
  for (; o < end; o += 64) {
    for (let t = 0, p = o; t < 16; t++, p += 4) w[t] = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15];
      const y = w[t - 2];
      w[t] = (w[t - 16] + (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + w[t - 7] +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) | 0;
    }
    let a = h0, bb = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7;
    for (let t = 0; t < 64; t++) {
      // Σ1(e) + Ch(e, f, g), Σ0(a) + Maj(a, b, c)
      const t1 = (hh + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + (g ^ (e & (f ^ g))) + K[t] + w[t]) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & bb) | (c & (a | bb)))) | 0;
      hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = bb; bb = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + bb) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + hh) | 0;
  }
  H[0] = h0; H[1] = h1; H[2] = h2; H[3] = h3; H[4] = h4; H[5] = h5; H[6] = h6; H[7] = h7;
}

/**
 * SHA-256 of `bytes`.
 * @param {Uint8Array} bytes
 * @returns {Uint8Array} 32-byte digest
 */
export function sha256(bytes) {
  H.set(H0);
  const n = bytes.length;
  const full = n - (n % 64);
  compressBlocks(bytes, 0, full);
  // padding: 0x80, zeros, then the bit length as a 64-bit big-endian integer
  const rest = n - full;
  const end = rest < 56 ? 64 : 128;
  TAIL.fill(0, 0, end);
  TAIL.set(bytes.subarray(full), 0);
  TAIL[rest] = 0x80;
  const bits = n * 8;
  const hi = Math.floor(bits / 2 ** 32);
  TAIL[end - 8] = hi >>> 24; TAIL[end - 7] = hi >>> 16; TAIL[end - 6] = hi >>> 8; TAIL[end - 5] = hi;
  TAIL[end - 4] = bits >>> 24; TAIL[end - 3] = bits >>> 16; TAIL[end - 2] = bits >>> 8; TAIL[end - 1] = bits;
  compressBlocks(TAIL, 0, end);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    out[4 * i] = v >>> 24; out[4 * i + 1] = v >>> 16; out[4 * i + 2] = v >>> 8; out[4 * i + 3] = v;
  }
  return out;
}

/**
 * SHA-256 by the browser's WebCrypto, or null where the page has none (WebCrypto is only in
 * secure contexts: HTTPS, localhost). It is native and runs off the page's main thread, where
 * sha256() above costs that thread ~8 ms per MB once compiled and 3-7 times that in its first
 * calls (Chromium, a 560 KB segment: 26-33 ms on its first call, 4.5 ms warm, 1.3-2.1 ms by WebCrypto).
 * @type {((bytes: Uint8Array) => Promise<Uint8Array>) | null}
 */
export const sha256Async = globalThis.crypto?.subtle
  ? async (bytes) => new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (bytes)))
  : null;
