// The hidden, web-accessible download frame: runs ProxyClientLib (WebRTC works here, outside
// the page's CSP), answers the page over a MessagePort with transferred ArrayBuffers, and
// reports every download's record and every fallback to the background.
import browser from '../shared/api.js';
import { createClient } from '@mutp/proxyclientlib';
import { loadSettings, clientId, SETTINGS_KEY } from '../shared/storage.js';
import { compilePatterns } from '../shared/patterns.js';
import { TAG } from '../shared/page-messages.js';
import { createRequestServer } from './serve-requests.js';
import { createOriginHeads } from './origin-heads.js';
import { createProxyCache } from './proxy-cache.js';
import { frameUnderMixedContentRule, mixedContentGuard } from '../shared/mixed-content.js';

const PROXY_LIST_KEY = 'proxyList';
const logger = { warn: (...a) => console.warn('[mutp frame]', ...a) };

const [loaded, cid] = await Promise.all([loadSettings(), clientId()]); // both from storage: one wait, not two
let settings = loaded;
let matches = compilePatterns(settings.patterns);
const heads = createOriginHeads();
const fetchWatched = heads.observing(globalThis.fetch.bind(globalThis));
// plain-HTTP endpoints this frame may not fetch are refused up front, with a code Origo counts
const blocked = mixedContentGuard(frameUnderMixedContentRule(window));
const newClient = () => createClient({ origo: settings.origoUrl, clientId: cid, logger, fetch: fetchWatched, blocked });
let client = newClient();
// session storage: the next page load finds the list and its tickets (absent in old browsers: each page asks Origo)
const session = browser.storage.session ?? null;
const proxies = createProxyCache({
  client: () => client, now: () => Date.now(), origo: () => settings.origoUrl,
  shared: session && {
    get: () => session.get(PROXY_LIST_KEY).then((got) => got[PROXY_LIST_KEY] ?? null),
    set: (v) => (v === null ? session.remove(PROXY_LIST_KEY) : session.set({ [PROXY_LIST_KEY]: v })),
  },
});

browser.storage.onChanged.addListener(async (changes, area) => {
  if (area !== 'local' || !(SETTINGS_KEY in changes)) return;
  const before = settings.origoUrl;
  settings = await loadSettings();
  matches = compilePatterns(settings.patterns);
  if (settings.origoUrl !== before) {
    client.close();
    client = newClient();
    proxies.invalidate();
  }
});

const channel = new MessageChannel();
const port = channel.port1;

/** @param {object} msg */
const toBackground = (msg) => browser.runtime.sendMessage(msg).catch((err) => logger.warn(`background unreachable: ${err?.message}`));

const server = createRequestServer({
  state: () => ({ settings, matches, client, clientId: cid, proxies, fetch: globalThis.fetch.bind(globalThis) }),
  port, toBackground, logger, heads,
});
port.onmessage = (e) => { server.onPageMessage(e.data); };

window.parent.postMessage({ [TAG]: 'port' }, '*', [channel.port2]);
