// Hand a manifest's text to the page's detector; a broken manifest is the player's problem, not ours.
import { MAX_MANIFEST_CHARS } from '../shared/manifests.js';

/**
 * @param {import('./main-world.js').PageConfig} cfg
 * @param {'hls' | 'dash'} kind
 * @param {string} url
 * @param {string} text
 */
export function learnFromText(cfg, kind, url, text) {
  if (text.length > MAX_MANIFEST_CHARS) return;
  try {
    cfg.learn(kind, url, text);
  } catch (err) {
    console.warn(`[mutp] cannot read the manifest ${url.slice(0, 200)}: ${/** @type {Error} */ (err)?.message}`);
  }
}
