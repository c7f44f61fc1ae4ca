// Settings and the installation id, from extension storage.
import browser from './api.js';
import { readSettings, SETTINGS_KEY } from './settings-store.js';

export { SETTINGS_KEY };
const CLIENT_ID_KEY = 'clientId';

/** @returns {Promise<import('./settings.js').Settings>} */
export const loadSettings = () => readSettings(browser.storage.local);

/** @returns {Promise<string>} a random id of this installation, made once */
export async function clientId() {
  const got = await browser.storage.local.get(CLIENT_ID_KEY);
  if (typeof got[CLIENT_ID_KEY] === 'string') return got[CLIENT_ID_KEY];
  const id = crypto.randomUUID();
  await browser.storage.local.set({ [CLIENT_ID_KEY]: id });
  return id;
}
