// A fleet host reached over a runtime.Port instead of MessagePorts (Firefox: its web-accessible
// frame cannot see the background page's window). The frame's two MessagePorts (the page's and
// the control port) are carried over one runtime.Port, each message tagged with its channel; the
// host side hands the fleet host a local MessageChannel pair per port. Firefox's runtime
// messaging clones structurally, so ArrayBuffers cross as bytes, not JSON.

export const RELAY_PORT_NAME = 'mutp-fleet';
const PAGE = 'p';
const CONTROL = 'c';

/**
 * @typedef {{postMessage: (m: unknown) => void, onMessage: {addListener: (f: (m: any) => void) => void},
 *   onDisconnect: {addListener: (f: () => void) => void}, disconnect: () => void}} RuntimePort
 */

/** @param {unknown} m @returns {ArrayBuffer[]} a body message's buffer, to transfer on */
const transferOf = (m) => (m && typeof m === 'object' && /** @type {any} */ (m).buf instanceof ArrayBuffer ? [/** @type {any} */ (m).buf] : []);

/**
 * The frame's side: carry `page` and `control` over `runtime`.
 * @param {RuntimePort} runtime @param {MessagePort} page @param {MessagePort} control
 * @param {object} attach  the attach message (settings, client id)
 */
export function relayFromFrame(runtime, page, control, attach) {
  runtime.postMessage({ c: 'attach', m: attach });
  page.onmessage = (e) => runtime.postMessage({ c: PAGE, m: e.data });
  control.onmessage = (e) => runtime.postMessage({ c: CONTROL, m: e.data });
  runtime.onMessage.addListener((w) => {
    if (w?.c === PAGE) page.postMessage(w.m, transferOf(w.m));
    else if (w?.c === CONTROL) control.postMessage(w.m);
  });
}

/**
 * The host's side: one attach per runtime port.
 * @param {RuntimePort} runtime
 * @param {(a: {page: MessagePort, control: MessagePort, settings: unknown, clientId: unknown}) => void} attach  the fleet host's
 */
export function relayToHost(runtime, attach) {
  const page = new MessageChannel();
  const control = new MessageChannel();
  let attached = false;
  runtime.onMessage.addListener((w) => {
    if (w?.c === 'attach' && !attached) {
      attached = true;
      attach({ page: page.port1, control: control.port1, settings: w.m?.settings, clientId: w.m?.clientId });
    } else if (w?.c === PAGE) page.port2.postMessage(w.m, transferOf(w.m));
    else if (w?.c === CONTROL) control.port2.postMessage(w.m);
  });
  page.port2.onmessage = (e) => runtime.postMessage({ c: PAGE, m: e.data });
  control.port2.onmessage = (e) => runtime.postMessage({ c: CONTROL, m: e.data });
  runtime.onDisconnect.addListener(() => control.port2.postMessage({ t: 'bye' })); // the frame went away
}
