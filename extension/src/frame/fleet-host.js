// The fleet client and its state, serving every page that attaches: ProxyClientLib (with its
// pooled WebRTC connections), the cached proxy list, the breakers and the warm-up. It runs in a
// long-lived extension document (Chrome's offscreen document, Firefox's background page), so a
// second page load finds the connections open; where none is reachable, in the page's frame.
// Each page attaches with two ports: its own (requests in, bodies out, transferred) and a control
// port to its frame (settings in; records and fallbacks out, sent by the frame as its tab's).
// No browser API here: the entry pages wire it.
import { createClient } from '@mutp/proxyclientlib';
import { compilePatterns } from '../shared/patterns.js';
import { createRequestServer } from './serve-requests.js';
import { createOriginHeads } from './origin-heads.js';
import { createProxyCache } from './proxy-cache.js';
import { createBreakers } from './breaker.js';
import { createWarmUp } from './warm-up.js';
import { createRtcClaims } from './rtc-claims.js';
import { mixedContentGuard } from '../shared/mixed-content.js';
import { parseSettings } from '../shared/settings.js';

import { FLEET_HOST_KEY } from '../shared/page-messages.js';
export const PAGE_GONE = 'ERR_PAGE_GONE'; // why a download stopped: its page went away
const MAX_PAGES = 64; // attached pages kept; a frame that vanished without saying so is dropped oldest first
const CLIENT_ID_CHARS = 64;

/**
 * @typedef {{get: () => Promise<unknown>, set: (v: object | null) => Promise<void>}} SharedSlot
 * @typedef {{t: 'bg', msg: object} | {t: 'attached', reused: boolean}} ControlOut
 */

/**
 * @param {object} o
 * @param {boolean} o.underMixedContentRule  frameUnderMixedContentRule(window) of the document it runs in
 * @param {SharedSlot | null} [o.shared]  session storage for the proxy list, where this document has it
 * @param {{warn: (...a: unknown[]) => void}} [o.logger]
 * @param {typeof createClient} [o.makeClient]  tests
 */
export function createFleetHost({ underMixedContentRule, shared = null, logger = { warn: (...a) => console.warn('[mutp fleet]', ...a) }, makeClient = createClient }) {
  /** @type {import('../shared/settings.js').Settings | null} */
  let settings = null;
  let matches = compilePatterns([]);
  let cid = '';
  /** @type {ReturnType<typeof createClient> | null} */
  let client = null;
  let attachedBefore = false;
  const heads = createOriginHeads();
  const fetchWatched = heads.observing(globalThis.fetch.bind(globalThis));
  const blocked = mixedContentGuard(underMixedContentRule);
  const proxies = createProxyCache({ client: () => /** @type {any} */ (client), now: () => Date.now(), origo: () => settings?.origoUrl ?? '', shared });
  const breakers = createBreakers();
  const now = () => performance.now();
  const warmUp = createWarmUp({ proxies: () => proxies, client: () => /** @type {any} */ (client), breakers, now, logger });
  const claims = createRtcClaims();
  /** @type {Map<MessagePort, {close: (code: string) => void}>} */
  const pages = new Map();

  /** @param {unknown} raw  settings from a frame (which read them from storage): checked as stored ones @param {unknown} id */
  function configure(raw, id) {
    const next = parseSettings(raw).settings;
    if (typeof id === 'string' && id.length > 0 && id.length <= CLIENT_ID_CHARS) cid = id;
    const before = settings;
    settings = next;
    matches = compilePatterns(next.patterns);
    if (client === null || next.origoUrl !== before?.origoUrl) {
      retire();
      client?.close();
      client = makeClient({ origo: next.origoUrl, clientId: cid, logger, fetch: fetchWatched, blocked });
    }
    // new settings (not another page's copy of the same): every fleet path gets a fresh try
    if (before !== null && JSON.stringify(before) !== JSON.stringify(next)) {
      breakers.reset();
      proxies.invalidate();
    }
  }

  /** @type {Record<string, number>} */
  const retired = {}; // the connection counters of the clients replaced so far (an Origo change)
  function retire() {
    for (const [k, v] of Object.entries(client?.connectionCounters() ?? {})) if (k !== 'idle' && Number.isFinite(v)) retired[k] = (retired[k] ?? 0) + v;
  }

  /**
   * A page's frame attaches the page's port.
   * @param {{page: MessagePort, control: MessagePort, settings: unknown, clientId: unknown}} a
   */
  function attach({ page, control, settings: raw, clientId }) {
    configure(raw, clientId);
    /** @param {ControlOut} m */
    const toFrame = (m) => control.postMessage(m);
    const server = createRequestServer({
      state: () => ({ settings: /** @type {any} */ (settings), matches, client: /** @type {any} */ (client), clientId: cid, proxies, fetch: globalThis.fetch.bind(globalThis) }),
      port: page, toBackground: (msg) => toFrame({ t: 'bg', msg }), logger, heads, breakers, warmUp, claims, now,
    });
    page.onmessage = (e) => server.onPageMessage(e.data);
    control.onmessage = (e) => {
      const m = /** @type {Record<string, unknown>} */ (e.data ?? {});
      if (m.t === 'settings') configure(m.settings, m.clientId);
      else if (m.t === 'bye') detach(control);
    };
    pages.set(control, server);
    if (pages.size > MAX_PAGES) detach(/** @type {MessagePort} */ (pages.keys().next().value));
    toFrame({ t: 'attached', reused: attachedBefore });
    attachedBefore = true;
  }

  /** @param {MessagePort} control */
  function detach(control) {
    pages.get(control)?.close(PAGE_GONE);
    pages.delete(control);
    control.close();
  }

  return {
    attach,
    /** Pooled WebRTC connections since this host started, over every client it made: {connects, reuses, …, idle now} (a test reads it). */
    connections() {
      const now = /** @type {Record<string, number>} */ ({ ...retired, idle: 0 });
      for (const [k, v] of Object.entries(client?.connectionCounters() ?? {})) now[k] = (k === 'idle' ? 0 : now[k] ?? 0) + v;
      return now;
    },
    pages: () => pages.size,
    /** Detach every page and close the fleet client (its pooled connections): a page that hosts the fleet itself is done with it. */
    close() {
      for (const control of [...pages.keys()]) detach(control);
      client?.close();
      client = null;
    },
    /** The last warm-up round: when, and per connection whether the pool had it already (a test reads it). */
    lastWarmUp: () => warmUp.last(),
  };
}

/**
 * Serve the frames that post `{[FLEET_HOST_KEY]: 'attach', settings, clientId}` with two ports to
 * this window. Only this extension's own pages can: the message's origin must be ours.
 * @param {Window & typeof globalThis} win
 * @param {ReturnType<typeof createFleetHost>} host
 */
export function listenForFrames(win, host) {
  win.addEventListener('message', (e) => {
    if (e.origin !== win.location.origin || e.data?.[FLEET_HOST_KEY] !== 'attach' || e.ports.length !== 2) return;
    host.attach({ page: e.ports[0], control: e.ports[1], settings: e.data.settings, clientId: e.data.clientId });
  });
  /** @type {any} */ (win)[FLEET_HOST_KEY] = host; // ready: a frame may attach now
}
