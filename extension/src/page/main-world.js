// Content script in the page's MAIN world, at document_start, in every frame: wraps fetch,
// XMLHttpRequest and MediaSource. It knows only what the bridge (the isolated-world script)
// tells it: the URL patterns, whether to detect segments on this site, the stall timeout. The
// Origo URL, the mode and the stats stay inside the extension.
import { compilePatterns } from '../shared/patterns.js';
import { createSegmentDetector } from '../shared/segment-detector.js';
import { createFrameLink } from './frame-link.js';
import { wrapFetch } from './fetch-wrapper.js';
import { makeXhrClass } from './xhr-wrapper.js';
import { wrapMediaSource } from './media-source.js';
import { watchFirstPlay, watchMediaElements } from './media-elements.js';
import { TAG } from '../shared/page-messages.js';

const CONFIG_WAIT_MS = 1500; // no answer from the bridge this long (extension reloading): behave as if disabled
const DEFAULT_NO_PROGRESS_MS = 4000; // settings.js's default, for a bridge that sent none

/**
 * @typedef {object} PageConfig
 * @property {(url: string, hasRange: boolean) => string | null} serveReason  why a GET goes to the fleet
 *   ('pattern', 'manifest', 'extension', 'range'), or null
 * @property {boolean} detect   segment detection is on for this page: manifests are read
 * @property {(kind: 'hls' | 'dash', url: string, text: string) => void} learn
 * @property {(url: string, contentType: string | null) => 'hls' | 'dash' | null} manifestOf
 * @property {(url: string) => string | null} nextOf  the segment file a player asks after this one, if the manifests say
 * @property {number} noProgressTimeoutMs
 */

(() => {
  if (globalThis[Symbol.for('mutp.installed')]) return; // injected twice (extension reload): wrap once
  globalThis[Symbol.for('mutp.installed')] = true;
  const warn = (msg) => console.warn(`[mutp] ${msg}`);
  const origFetch = globalThis.fetch.bind(globalThis);
  const OrigXHR = globalThis.XMLHttpRequest;
  const detector = createSegmentDetector();

  /** @type {PageConfig | null | undefined} undefined until the bridge answers; null = off */
  let current;
  let extensionOrigin = null;
  let mediaSeen = false; // a media element exists: warm up once the config says the extension is on here
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

  /** @param {Record<string, any>} d  the bridge's config message */
  function pageConfig(d) {
    const patterns = d.patterns === true || d.detect === true;
    if (d.enabled !== true || !patterns || !Array.isArray(d.patternList)) return null;
    const matches = compilePatterns(d.patternList.filter((p) => typeof p === 'string'));
    const detect = d.detect === true;
    return {
      detect,
      serveReason: (url, hasRange) => (matches(url) ? 'pattern' : detect ? detector.segmentReason(url, hasRange) : null),
      learn: (kind, url, text) => {
        const got = detector.learn(kind, url, text);
        // the init sections of its renditions: the player asks one of them first, and the proxies fetch them meanwhile
        link.note({ t: 'seen', kind: 'manifest', url, segments: got.segments.length, templates: got.templates.length, inits: got.inits });
        link.warm(); // a player that read a manifest asks for segments next
      },
      manifestOf: detector.manifestOf,
      nextOf: (url) => (detect ? detector.nextOf(url) : null),
      noProgressTimeoutMs: Number.isInteger(d.noProgressTimeoutMs) && d.noProgressTimeoutMs > 0 ? d.noProgressTimeoutMs : DEFAULT_NO_PROGRESS_MS,
    };
  }

  window.addEventListener('message', (e) => {
    const d = e.data;
    if (!d || typeof d !== 'object' || typeof d[TAG] !== 'string') return;
    if (d[TAG] === 'config' && e.source === window) {
      e.stopImmediatePropagation(); // ours: page listeners need not see it
      if (typeof d.extensionOrigin === 'string') extensionOrigin = d.extensionOrigin;
      current = pageConfig(d);
      markReady();
      if (mediaSeen && current) link.warm(); // a media element came before the config
    } else if (d[TAG] === 'port' && extensionOrigin !== null && e.origin === extensionOrigin && e.ports?.[0]) {
      e.stopImmediatePropagation();
      link.attach(e.ports[0]);
    }
  }, true);

  globalThis.fetch = wrapFetch({ origFetch, config, link, warn });
  globalThis.XMLHttpRequest = makeXhrClass({ OrigXHR, origFetch, config, configNow: () => current, link, warn });
  // a page that makes a MediaSource plays video: Range requests count as media, and the fleet warms up
  wrapMediaSource(globalThis, () => {
    detector.noteMediaSource();
    if (current?.detect) link.warm();
  });
  // earlier still: the page has a media element (its player script may not have loaded yet)
  watchMediaElements(document, () => {
    mediaSeen = true;
    if (current) link.warm();
  });
  // its start is over: the warm-up's WebRTC connects go now, off the first frame's way
  watchFirstPlay(document, () => link.playing());
  window.postMessage({ [TAG]: 'hello' }, '*'); // the bridge may have started first and missed nothing; if not, it answers this
})();
