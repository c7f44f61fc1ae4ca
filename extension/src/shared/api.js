// The WebExtension API with promises in both browsers (Firefox: `browser`; Chrome: the polyfill).
import browser from 'webextension-polyfill';

export default browser;
