// Firefox: the fleet host is the background page (an event page: Firefox unloads it after some
// idle time, and the connections with it; the records sent while a video plays keep it awake).
// Its web-accessible frame sees no extension views, so the frame reaches the host over a
// runtime.Port (port-relay.js), which also wakes the background page.
import browser from '#native-api';
import { whenReady } from './ready.js';
import { relayFromFrame, relayToHost, RELAY_PORT_NAME } from './port-relay.js';
import { FLEET_HOST_KEY } from '../shared/page-messages.js';

export const ENSURE_HOME = 'fleet-home';

/**
 * The frame's side.
 * @param {object} attach  the attach message @param {MessagePort} page @param {MessagePort} control
 * @returns {Promise<boolean>} handed to the host
 */
export async function attachToHome(attach, page, control) {
  relayFromFrame(/** @type {any} */ (browser.runtime.connect({ name: RELAY_PORT_NAME })), page, control, attach);
  return true;
}

/** The background page is the host: nothing to make. */
export const ensureHome = () => Promise.resolve(true);

/** The background's side (background.js, at once: a waking event page must not miss the frame's port). */
export function serveHome() {
  const frameUrl = browser.runtime.getURL('frame.html');
  browser.runtime.onConnect.addListener((port) => {
    if (port.name !== RELAY_PORT_NAME || !port.sender?.url?.startsWith(frameUrl)) return;
    relayToHost(/** @type {any} */ (port), (a) => {
      whenReady(() => window).then((w) => (w ? /** @type {any} */ (w)[FLEET_HOST_KEY].attach(a) : port.disconnect()));
    });
  });
}

/** The host's pooled connection counters and last warm-up (background.js answers an extension page with them). @returns {object | null} */
export function hostConnections() {
  const host = /** @type {any} */ (window)[FLEET_HOST_KEY];
  return host ? { ...host.connections(), lastWarmUp: host.lastWarmUp() } : null;
}
