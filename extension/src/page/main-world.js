// Content script in the page's MAIN world, at document_start, in every frame: wraps fetch and
// XMLHttpRequest. It knows only the URL patterns and the stall timeout (from the bridge, the
// isolated-world script); the Origo URL, the mode and the stats stay inside the extension.
import { compilePatterns } from '../shared/patterns.js';
import { createFrameLink } from './frame-link.js';
import { wrapFetch } from './fetch-wrapper.js';
import { makeXhrClass } from './xhr-wrapper.js';
import { TAG } from '../shared/page-messages.js';

const CONFIG_WAIT_MS = 1500; // no answer from the bridge this long (extension reloading): behave as if disabled

/** @typedef {{matches: (url: string) => boolean, noProgressTimeoutMs: number}} PageConfig */

(() => {
  if (globalThis[Symbol.for('mutp.installed')]) return; // injected twice (extension reload): wrap once
  globalThis[Symbol.for('mutp.installed')] = true;
  const warn = (msg) => console.warn(`[mutp] ${msg}`);
  const origFetch = globalThis.fetch.bind(globalThis);
  const OrigXHR = globalThis.XMLHttpRequest;

  /** @type {PageConfig | null | undefined} undefined until the bridge answers; null = off */
  let current;
  let extensionOrigin = null;
  /** @type {() => void} */
  let markReady;
  const ready = new Promise((r) => { markReady = () => r(undefined); });
  setTimeout(() => {
    if (current === undefined) {
      current = null;
      markReady();
    }
  }, CONFIG_WAIT_MS);
  const config = () => (current !== undefined ? Promise.resolve(current) : ready.then(() => current ?? null));

  const link = createFrameLink({ requestFrame: () => window.postMessage({ [TAG]: 'need-frame' }, '*'), warn });

  window.addEventListener('message', (e) => {
    const d = e.data;
    if (!d || typeof d !== 'object' || typeof d[TAG] !== 'string') return;
    if (d[TAG] === 'config' && e.source === window) {
      e.stopImmediatePropagation(); // ours: page listeners need not see it
      if (typeof d.extensionOrigin === 'string') extensionOrigin = d.extensionOrigin;
      const on = d.enabled === true && Array.isArray(d.patterns);
      const timeout = Number.isInteger(d.noProgressTimeoutMs) && d.noProgressTimeoutMs > 0 ? d.noProgressTimeoutMs : 4000;
      current = on ? { matches: compilePatterns(d.patterns.filter((p) => typeof p === 'string')), noProgressTimeoutMs: timeout } : null;
      markReady();
    } else if (d[TAG] === 'port' && extensionOrigin !== null && e.origin === extensionOrigin && e.ports?.[0]) {
      e.stopImmediatePropagation();
      link.attach(e.ports[0]);
    }
  }, true);

  globalThis.fetch = wrapFetch({ origFetch, config, link, warn });
  globalThis.XMLHttpRequest = makeXhrClass({ OrigXHR, origFetch, config, configNow: () => current, link, warn });
  window.postMessage({ [TAG]: 'hello' }, '*'); // the bridge may have started first and missed nothing; if not, it answers this
})();
