// The pure-JS backend: every object owns a plain Uint8Array, pointers are offsets into it.
import { encode, decode } from './js-kernels.js';
import { CoefficientGenerator } from './coefficients.js';

/** @typedef {import('./backend-types.js').Backend} Backend */

/** @type {Backend} */
export const jsBackend = {
  name: 'js',
  arena(bytes) {
    const mem = new Uint8Array(bytes);
    return { base: 0, mem: () => mem, free() {} };
  },
  encode,
  encodeNext(mem, out, symbols, state, g, size) {
    const gen = CoefficientGenerator.load(mem, state);
    gen.fill(mem, out, g);
    gen.save(mem, state);
    encode(mem, out + g, symbols, out, g, size);
  },
  decode,
};
