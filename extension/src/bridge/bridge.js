// Content script in the ISOLATED world, at document_start: reads the settings, tells the MAIN
// world only what it needs (patterns, whether to detect segments on this site, stall timeout),
// and inserts the hidden download frame the first time the page asks for it.
import browser from '#native-api';
import { readSettings, SETTINGS_KEY } from '../shared/settings-store.js';
import { TAG } from '../shared/page-messages.js';
import { activeOn } from '../shared/sites.js';

const FRAME_PAGE = 'frame.html';

(() => {
  const extensionOrigin = new URL(browser.runtime.getURL('/')).origin;
  /** @type {HTMLIFrameElement | null} */
  let frame = null;
  /** @type {object | null} */
  let lastConfig = null;

  const post = (cfg) => window.postMessage({ [TAG]: 'config', extensionOrigin, ...cfg }, '*');

  async function refresh() {
    const s = await readSettings(browser.storage.local);
    const on = activeOn(s, location.hostname);
    lastConfig = { enabled: s.enabled, patterns: on.patterns, detect: on.detect, patternList: s.patterns, noProgressTimeoutMs: s.noProgressTimeoutMs };
    post(lastConfig);
  }

  function insertFrame() {
    if (frame?.isConnected) return;
    frame = document.createElement('iframe');
    frame.src = browser.runtime.getURL(FRAME_PAGE);
    frame.hidden = true;
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    frame.style.cssText = 'display:none!important';
    (document.body ?? document.documentElement).appendChild(frame);
  }

  window.addEventListener('message', (e) => {
    if (e.source !== window) return;
    const d = e.data;
    if (!d || typeof d !== 'object') return;
    if (d[TAG] === 'hello') {
      e.stopImmediatePropagation();
      if (lastConfig) post(lastConfig);
    } else if (d[TAG] === 'need-frame') {
      e.stopImmediatePropagation();
      insertFrame();
    }
  }, true);

  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && SETTINGS_KEY in changes) refresh();
  });
  refresh().catch((err) => console.warn(`[mutp] cannot read settings: ${err?.message}`));
})();
