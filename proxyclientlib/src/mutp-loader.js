// The MUTP transport (coded/uncoded over WebRTC) lives in ./mutp/ (its own engineer). Loaded
// lazily so HTTP modes work in environments without WebRTC.
import { codedError } from './errors.js';

/** @returns {Promise<(o: any) => Promise<any>>} */
export async function loadMutp() {
  let mod;
  try {
    const specifier = './mutp/index.js'; // not a literal: the module may not exist yet in this checkout
    mod = await import(specifier);
  } catch (err) {
    throw codedError('ERR_MODE_UNAVAILABLE', `the MUTP transport could not be loaded: ${/** @type {Error} */ (err).message}`);
  }
  if (typeof mod.downloadMutp !== 'function') throw codedError('ERR_MODE_UNAVAILABLE', 'the MUTP transport exports no downloadMutp');
  return mod.downloadMutp;
}
