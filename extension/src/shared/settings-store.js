// The settings and the installation id as stored in an extension storage area. No browser API
// of its own: the scripts every page load runs (the content script in every frame, the download
// frame) read them with the browser's native API, without the polyfill.
import { parseSettings } from './settings.js';

export const SETTINGS_KEY = 'settings';
const CLIENT_ID_KEY = 'clientId';
// Settings baked into a TEST build by `build.js --config FILE` (esbuild define); null in the
// product build. Used only while storage holds no settings, and validated like stored ones.
// Firefox's WebDriver BiDi cannot open extension pages, so a test cannot set options there.
const BAKED_SETTINGS = /** @type {unknown} */ (globalThis.__MUTP_BAKED_SETTINGS__ ?? null);

/**
 * @param {{get: (key: string) => Promise<Record<string, unknown>>}} area  storage.local
 * @returns {Promise<import('./settings.js').Settings>}
 */
export async function readSettings(area) {
  const got = await area.get(SETTINGS_KEY);
  const { settings, problems } = parseSettings(got[SETTINGS_KEY] ?? BAKED_SETTINGS);
  if (problems.length) console.warn(`[mutp] stored settings: ${problems.join('; ')} (defaults used for those)`);
  return settings;
}

/**
 * A random id of this installation, made once.
 * @param {{get: (key: string) => Promise<Record<string, unknown>>, set: (v: object) => Promise<void>}} area  storage.local
 * @returns {Promise<string>}
 */
export async function readClientId(area) {
  const got = await area.get(CLIENT_ID_KEY);
  if (typeof got[CLIENT_ID_KEY] === 'string') return got[CLIENT_ID_KEY];
  const id = crypto.randomUUID();
  await area.set({ [CLIENT_ID_KEY]: id });
  return id;
}
