// The MUTP transport (coded/uncoded over WebRTC) lives in ./mutp/. Loaded lazily so HTTP modes
// work in environments without WebRTC.
import { codedError } from '@mutp/common/errors';

/**
 * The transport's download and its window choice (the window is MUTP's alone: an HTTP download
 * loads neither, nor the codec they bring), and the codec's loader.
 * @returns {Promise<{downloadMutp: (o: any) => Promise<any>, downloadWindow: typeof import('./mutp/window-choice.js').downloadWindow,
 *   loadCodec: () => Promise<unknown>}>}
 */
export async function loadMutp() {
  let mod;
  try {
    // A literal specifier, so bundlers (the extension build) follow it into a chunk.
    mod = await import('./mutp/index.js');
  } catch (err) {
    throw codedError('ERR_MODE_UNAVAILABLE', `the MUTP transport could not be loaded: ${/** @type {Error} */ (err).message}`);
  }
  if (typeof mod.downloadMutp !== 'function') throw codedError('ERR_MODE_UNAVAILABLE', 'the MUTP transport exports no downloadMutp');
  return { downloadMutp: mod.downloadMutp, downloadWindow: mod.downloadWindow, loadCodec: () => mod.loadCodec() };
}
