// Settings and the installation id, from extension storage.
import browser from './api.js';
import { readSettings, readClientId, SETTINGS_KEY } from './settings-store.js';

export { SETTINGS_KEY };

/** @returns {Promise<import('./settings.js').Settings>} */
export const loadSettings = () => readSettings(browser.storage.local);

/** @returns {Promise<string>} a random id of this installation, made once */
export const clientId = () => readClientId(browser.storage.local);
