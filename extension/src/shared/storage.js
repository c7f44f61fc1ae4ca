// Settings and the installation id, from extension storage.
import browser from './api.js';
import { parseSettings } from './settings.js';

export const SETTINGS_KEY = 'settings';
const CLIENT_ID_KEY = 'clientId';
// Settings baked into a TEST build by `build.js --config FILE` (esbuild define); null in the
// product build. Used only while storage holds no settings, and validated like stored ones.
// Firefox's WebDriver BiDi cannot open extension pages, so a test cannot set options there.
const BAKED_SETTINGS = /** @type {unknown} */ (globalThis.__MUTP_BAKED_SETTINGS__ ?? null);

/** @returns {Promise<import('./settings.js').Settings>} */
export async function loadSettings() {
  const got = await browser.storage.local.get(SETTINGS_KEY);
  const { settings, problems } = parseSettings(got[SETTINGS_KEY] ?? BAKED_SETTINGS);
  if (problems.length) console.warn(`[mutp] stored settings: ${problems.join('; ')} (defaults used for those)`);
  return settings;
}

/** @returns {Promise<string>} a random id of this installation, made once */
export async function clientId() {
  const got = await browser.storage.local.get(CLIENT_ID_KEY);
  if (typeof got[CLIENT_ID_KEY] === 'string') return got[CLIENT_ID_KEY];
  const id = crypto.randomUUID();
  await browser.storage.local.set({ [CLIENT_ID_KEY]: id });
  return id;
}
