// The page's fleet host in a dedicated worker (fleet.js starts it where the browser lets a page
// hand data channels to a worker). The same host as in the page, attached to the same two ports:
// each download's fetches, packets, decoding and votes run here, off the thread the player needs.
// The page keeps the peer connections (rtc-bridge.js) and the records' upload.
import { rtcBridge } from './worker-rtc.js'; // first: the worker's RTCPeerConnection
import { createFleetHost } from '@mutp/extension/fleet-host';

const scope = /** @type {any} */ (globalThis);
/** @type {ReturnType<typeof createFleetHost> | null} */
let host = null;
const logger = { warn: (/** @type {unknown[]} */ ...a) => scope.postMessage({ t: 'warn', text: a.map(String).join(' ') }) };

scope.onmessage = (/** @type {MessageEvent} */ e) => {
  const m = e.data;
  if (m?.t === 'attach' && host === null && m.page instanceof MessagePort && m.control instanceof MessagePort && m.rtc instanceof MessagePort) {
    // a page can hand a worker its data channels where the worker has the type (Chromium,
    // Firefox); elsewhere the page hosts, on the ports given back with their messages unread
    if (typeof scope.RTCDataChannel !== 'function') return scope.postMessage({ t: 'refused', page: m.page, control: m.control }, [m.page, m.control]);
    rtcBridge.connect(m.rtc);
    host = createFleetHost({ underMixedContentRule: m.underMixedContentRule === true, logger });
    host.attach({ page: m.page, control: m.control, settings: m.settings, clientId: m.clientId });
    scope.postMessage({ t: 'attached' });
  } else if (m?.t === 'close') {
    host?.close();
    scope.close();
  }
};
