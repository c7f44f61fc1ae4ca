// Where a page's fleet host runs. In a dedicated worker where the browser lets a page hand a data
// channel to one (Chromium 156 and Firefox 153 do): downloads, packets, decoding and votes then
// leave the thread the player parses, transmuxes and appends on. Elsewhere, or when the worker
// cannot start (a Content-Security-Policy, a bundle served from another origin), in the page.
// Either way the host serves the page's two ports (fresh ones when a worker died with them).
import { createFleetHost } from '@mutp/extension/fleet-host';
import { serveRtcBridge } from '@mutp/proxyclientlib/rtc-bridge';

const WORKER_START_TIMEOUT_MS = 5000; // not attached by then (its script blocked, or not found): the page hosts
const WORKER_CLOSE_GRACE_MS = 1000; // a closing worker ends its downloads itself; after this it is terminated

/**
 * @typedef {object} HostPorts
 * @property {MessagePort} page  the requests' port (its other end is the page's link)
 * @property {MessagePort} control  settings in, records and fallbacks out
 *
 * @typedef {HostPorts & HostOptions} HostStart
 *
 * @typedef {object} HostOptions
 * @property {() => HostPorts} reconnect  fresh ports, the page's ends attached in their place:
 *   called when a worker that took the ports died before it could serve them
 * @property {unknown} settings
 * @property {string} clientId
 * @property {boolean} underMixedContentRule
 * @property {{warn: (...a: unknown[]) => void}} logger
 * @property {typeof import('@mutp/proxyclientlib').createClient} [makeClient]  tests: a page host with this client
 * @property {boolean} [worker]  false: in the page; default: in a worker where it can be
 */

/**
 * The worker gets the ports with its start, not after a word from it: a page's thread is busy
 * while the player's script and manifest load, and a word from the worker waited there 50-76 ms
 * before it was read (Chromium, hls.js, first loads), and the warm-up's proxy list with it.
 * A worker without data channels hands the ports back unused (their messages still queued); one
 * that fails to start takes them with it, and the page's host gets fresh ones (`reconnect`).
 * @param {HostStart} o
 * @returns {{place: Promise<'worker' | 'page'>, close: () => void}}  place: where it runs, once it does
 */
export function startFleetHost(o) {
  /** The host in the page, attached to these ports: its close. @param {HostPorts} ports */
  const inPage = (ports) => {
    const host = createFleetHost({ underMixedContentRule: o.underMixedContentRule, logger: o.logger, ...(o.makeClient ? { makeClient: o.makeClient } : {}) });
    host.attach({ page: ports.page, control: ports.control, settings: o.settings, clientId: o.clientId });
    return { close: () => host.close() };
  };
  const pageOnly = () => ({ place: /** @type {Promise<'page'>} */ (Promise.resolve('page')), close: inPage(o).close });
  if (o.worker === false || o.makeClient || typeof globalThis.Worker !== 'function' || typeof globalThis.RTCPeerConnection !== 'function') return pageOnly();
  /** @type {Worker} */
  let worker;
  try {
    // next to this module, in the sources and in the bundle alike; written out whole, as bundlers
    // (webpack, Vite) recognise a worker's module
    worker = new Worker(new URL('./mutp-fleet-worker.js', import.meta.url), { type: 'module', name: 'mutp-fleet' });
  } catch (err) {
    o.logger.warn(`the fleet runs in the page: no worker (${/** @type {Error} */ (err)?.message})`);
    return pageOnly();
  }
  const rtc = new MessageChannel();
  const bridge = serveRtcBridge(rtc.port1, { logger: o.logger });
  worker.postMessage({ t: 'attach', page: o.page, control: o.control, rtc: rtc.port2, settings: o.settings, clientId: o.clientId,
    underMixedContentRule: o.underMixedContentRule }, [o.page, o.control, rtc.port2]);

  /** @type {{close: () => void} | null} */
  let stop = null;
  let closed = false;
  const place = new Promise((resolve) => {
    const timer = setTimeout(() => fallBack(`no word from the worker in ${WORKER_START_TIMEOUT_MS} ms`, null), WORKER_START_TIMEOUT_MS);
    /** @param {string} why @param {HostPorts | null} ports  the worker's, handed back; null: lost with it */
    function fallBack(why, ports) {
      if (stop) return;
      clearTimeout(timer);
      worker.terminate();
      bridge.close();
      if (closed) { // the fleet was closed meanwhile: nothing to host
        stop = { close() {} };
        ports?.page.close();
        ports?.control.close();
      } else {
        o.logger.warn(`the fleet runs in the page: ${why}`);
        stop = inPage(ports ?? o.reconnect());
      }
      resolve('page');
    }
    worker.onerror = (e) => {
      if (stop) return; // running: its errors are the console's to show
      e.preventDefault?.();
      fallBack(`the worker failed to start (${e.message || 'its script did not load'})`, null);
    };
    worker.onmessage = (e) => {
      const m = e.data;
      if (m?.t === 'warn' && typeof m.text === 'string') o.logger.warn(m.text.slice(0, 2000));
      if (stop) return;
      if (m?.t === 'refused' && m.page instanceof MessagePort && m.control instanceof MessagePort) fallBack('the worker has no data channels', { page: m.page, control: m.control });
      else if (m?.t === 'attached') {
        clearTimeout(timer);
        stop = {
          close() {
            worker.postMessage({ t: 'close' });
            bridge.close();
            setTimeout(() => worker.terminate(), WORKER_CLOSE_GRACE_MS);
          },
        };
        if (closed) stop.close();
        resolve('worker');
      }
    };
  });
  return {
    place: /** @type {Promise<'worker' | 'page'>} */ (place),
    close() {
      closed = true;
      stop?.close();
    },
  };
}
