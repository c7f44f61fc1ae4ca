// The hidden, web-accessible download frame: links the page to the fleet host. The host (the
// fleet client with its WebRTC connections, in a long-lived extension document where the
// browser has one: #fleet-home) gets the page's MessagePort, so bodies go from host to page as
// transferred ArrayBuffers with no hop through here. This frame reads the settings for it and
// sends its records and fallbacks to the background as this tab's. Where no host page can be
// reached, the frame hosts the fleet itself (each page load then connects anew).
import browser from '#native-api';
import { readSettings, readClientId, SETTINGS_KEY } from '../shared/settings-store.js';
import { TAG, FLEET_HOST_KEY } from '../shared/page-messages.js';
import { attachToHome } from '#fleet-home';

const PROXY_LIST_KEY = 'proxyList';
const logger = { warn: (...a) => console.warn('[mutp frame]', ...a) };

/** @returns {Promise<Window>} a window whose fleet host serves this frame */
async function hostHere() {
  const [{ createFleetHost, listenForFrames }, { frameUnderMixedContentRule }] = await Promise.all([import('./fleet-host.js'), import('../shared/mixed-content.js')]);
  // session storage: the next page load finds the proxy list and its tickets (absent in old browsers: each page asks Origo)
  const session = browser.storage.session ?? null;
  const shared = session && {
    get: () => session.get(PROXY_LIST_KEY).then((got) => got[PROXY_LIST_KEY] ?? null),
    set: (/** @type {object | null} */ v) => (v === null ? session.remove(PROXY_LIST_KEY) : session.set({ [PROXY_LIST_KEY]: v })),
  };
  listenForFrames(window, createFleetHost({ underMixedContentRule: frameUnderMixedContentRule(window), shared, logger }));
  return window;
}

// the page may send requests at once: they wait in the port until the host takes it
const page = new MessageChannel();
const control = new MessageChannel();
window.parent.postMessage({ [TAG]: 'port' }, '*', [page.port2]);

/** @param {object} msg */
const toBackground = (msg) => browser.runtime.sendMessage(msg).catch((err) => logger.warn(`background unreachable: ${err?.message}`));
control.port1.onmessage = (e) => {
  const m = e.data;
  if (m?.t === 'bg' && m.msg && typeof m.msg === 'object') toBackground(m.msg);
};

const loadSettings = () => readSettings(browser.storage.local);
const [settings, cid] = await Promise.all([loadSettings(), readClientId(browser.storage.local)]);
const attach = { [FLEET_HOST_KEY]: 'attach', settings, clientId: cid };
const reached = await attachToHome(attach, page.port1, control.port2).catch((err) => {
  logger.warn(`fleet host page unreachable: ${err?.message}`);
  return false;
});
if (!reached) {
  logger.warn('no fleet host page: this frame hosts the fleet (its connections end with the page)');
  (await hostHere()).postMessage(attach, location.origin, [page.port1, control.port2]);
}

browser.storage.onChanged.addListener(async (changes, area) => {
  if (area === 'local' && SETTINGS_KEY in changes) control.port1.postMessage({ t: 'settings', settings: await loadSettings(), clientId: cid });
});
// the host stops this page's downloads: their proxies serve the next page
window.addEventListener('pagehide', () => control.port1.postMessage({ t: 'bye' }));
