// Type definitions shared by the backends (JSDoc only, no runtime code).

/**
 * A block of codec memory owned by one encoder or decoder.
 * @typedef {object} Arena
 * @property {number} base first byte of the block, 16-byte aligned
 * @property {() => Uint8Array} mem the whole memory the block lives in (re-read after growth)
 * @property {() => void} free returns the block; idempotent
 */

/**
 * @typedef {object} Backend
 * @property {'relaxed'|'simd'|'scalar'|'js'} name
 * @property {(bytes: number) => Arena} arena zero-filled block of `bytes` bytes
 * @property {(mem: Uint8Array, out: number, symbols: number, coeffs: number, g: number, size: number) => void} encode
 *   out[0..size) = Σ coeffs[i]·symbol_i
 * @property {(mem: Uint8Array, out: number, symbols: number, state: number, g: number, size: number) => void} encodeNext
 *   the next packet: out[0..g) = coefficients drawn from the generator state at `state`, then encode into out+g
 * @property {(mem: Uint8Array, cm: number, dm: number, piv: number, row: number, g: number, size: number) => number} decode
 */

export {};
