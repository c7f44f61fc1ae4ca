// The pure-JS backend: every object owns a plain Uint8Array, pointers are offsets into it.
import { encode, decode } from './js-kernels.js';

/** @typedef {import('./backend-types.js').Backend} Backend */

/** @type {Backend} */
export const jsBackend = {
  name: 'js',
  arena(bytes) {
    const mem = new Uint8Array(bytes);
    return { base: 0, mem: () => mem, free() {} };
  },
  encode,
  decode,
};
