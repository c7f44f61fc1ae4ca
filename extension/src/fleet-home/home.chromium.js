// Chrome: the fleet host is an offscreen document (reason WEB_RTC), made by the service worker when
// it starts with the extension enabled, or else on the first frame's request. The frame reaches
// its window through chrome.extension.getViews() (same extension process) and transfers the
// page's port to it: bodies then go from host to page with no copy on the way.
import browser from '#native-api';
import { whenReady, isReadyHost } from './ready.js';
import { homeView } from './views.js';

const HOME_PAGE = 'offscreen.html';
export const ENSURE_HOME = 'fleet-home'; // the frame's request to the background

const find = () => homeView(HOME_PAGE);

/**
 * The frame's side.
 * @param {object} attach  the attach message @param {MessagePort} page @param {MessagePort} control
 * @returns {Promise<boolean>} handed to the host (false: no host page; the frame hosts the fleet)
 */
export async function attachToHome(attach, page, control) {
  let host = find();
  if (!isReadyHost(host)) host = (await browser.runtime.sendMessage({ t: ENSURE_HOME })) === true ? await whenReady(find) : null;
  if (!host) return false;
  host.postMessage(attach, location.origin, [page, control]);
  return true;
}

/** @type {Promise<boolean> | null} */
let making = null;

/** The background's side: make the offscreen document once. @returns {Promise<boolean>} it exists */
export function ensureHome() {
  const offscreen = /** @type {any} */ (globalThis).chrome?.offscreen;
  if (!offscreen) return Promise.resolve(false);
  making ??= offscreen.createDocument({ url: HOME_PAGE, reasons: ['WEB_RTC'], justification: 'keeps WebRTC connections to the proxy fleet open across page loads' })
    .then(() => true, (/** @type {Error} */ err) => {
      if (/single offscreen/i.test(String(err?.message))) return true; // made before this worker started
      console.warn(`[mutp] no offscreen document: ${err?.message}`);
      return false;
    })
    .finally(() => { making = null; });
  return making;
}

/** The service worker hosts nothing: the offscreen document listens for frames itself (fleet-page.js). */
export function serveHome() {}

/** The service worker cannot read the offscreen document's counters and warm-up (a test reads them there). @returns {null} */
export const hostConnections = () => null;
