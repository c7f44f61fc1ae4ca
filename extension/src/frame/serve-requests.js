// The download frame's answer to the page's requests: checks each request (the page is
// untrusted; any page can embed the frame and talk to it), runs ProxyClientLib, and streams the
// body to the page in order over the MessagePort, whatever the mode. No browser API here: the
// frame wires it to the port, the settings and the background.
import { chooseModeAndN } from '../shared/choose.js';
import { createInOrder } from './in-order.js';
import { parsePageMessage } from './page-request.js';
import { MIXED_CONTENT_CODE } from '../shared/mixed-content.js';

const ALIVE_EVERY_MS = 250; // progress heartbeat to the page's stall timer: bytes can arrive with none in order yet (a coded generation, a later range)

/**
 * @typedef {object} FrameState  read at each request: the settings can change meanwhile
 * @property {import('../shared/settings.js').Settings} settings
 * @property {(url: string) => boolean} matches
 * @property {{download: (url: string, opts: object) => Promise<{data: Uint8Array, stats: object}>}} client
 */

/**
 * @param {object} o
 * @param {() => FrameState} o.state
 * @param {{postMessage: (msg: object, transfer?: Transferable[]) => void}} o.port  to the page
 * @param {(msg: object) => void} o.toBackground
 * @param {{warn: (...a: unknown[]) => void}} o.logger
 * @param {() => number} [o.now]  ms clock for the heartbeat
 */
export function createRequestServer({ state, port, toBackground, logger, now = () => performance.now() }) {
  /** @type {Map<number, AbortController>} */
  const active = new Map();

  /** @param {unknown} data  a message from the page */
  function onPageMessage(data) {
    const m = parsePageMessage(data);
    if (m.t === 'bad') return logger.warn(`ignoring a page message: ${m.why}`);
    if (m.t === 'abort') return active.get(m.id)?.abort(Object.assign(new Error('the page aborted the request'), { code: 'ERR_ABORTED' }));
    if (m.t === 'fallback') return toBackground({ t: 'fallback', url: m.url, reason: m.reason });
    return serve(m.id, m.url, m.range);
  }

  /**
   * @param {number} id
   * @param {string} url
   * @param {{start: number, end: number} | null} range
   */
  async function serve(id, url, range) {
    const { settings, matches, client } = state();
    // the page-side wrapper checks the patterns too, but the frame is web-accessible: check again here
    if (!settings.enabled || !matches(url)) {
      port.postMessage({ t: 'fail', id, code: 'ERR_NOT_MATCHED', message: 'the URL does not match the extension settings' });
      return;
    }
    const { mode, n } = chooseModeAndN(settings);
    const ctrl = new AbortController();
    active.set(id, ctrl);
    let total = range ? range.end - range.start + 1 : null;
    const order = createInOrder((buf) => port.postMessage({ t: 'data', id, buf, total }, [buf]));
    let lastAlive = -Infinity;
    const where = settings.proximity && settings.location ? { lat: settings.location.lat, lon: settings.location.lon } : {};
    try {
      const { data, stats } = await client.download(url, {
        mode, proxies: n, range, signal: ctrl.signal, log: false, ...where,
        onProgress: (/** @type {{objectBytes: number | null, chunks?: {offset: number, bytes: Uint8Array}[]}} */ p) => {
          const t = now();
          if (t - lastAlive >= ALIVE_EVERY_MS) {
            lastAlive = t;
            port.postMessage({ t: 'alive', id });
          }
          if (Number.isSafeInteger(p.objectBytes)) total = p.objectBytes;
          // every mode streams: pieces (offset in the body, each byte once, any order) go to the page in order
          if (Array.isArray(p.chunks)) for (const c of p.chunks) order.push(c.offset, c.bytes);
        },
      });
      total = data.byteLength;
      order.finish(data);
      port.postMessage({ t: 'end', id });
      toBackground({ t: 'record', record: stats });
    } catch (err) {
      const e = /** @type {Error & {code?: string, stats?: {proxyIds?: string[]}}} */ (err);
      port.postMessage({ t: 'fail', id, code: e?.code ?? 'ERR_UNKNOWN', message: String(e?.message ?? e).slice(0, 300) });
      // a failed download that reached proxies is a measurement too (ProxyClientLib's rule); a blocked
      // plain-HTTP fleet is counted even when no proxy was reached: Origo must see the deployment problem
      const counted = e?.stats && (e.stats.proxyIds?.length > 0 || e.code === MIXED_CONTENT_CODE);
      if (counted && e.code !== 'ERR_ABORTED') toBackground({ t: 'record', record: e.stats });
    } finally {
      active.delete(id);
    }
  }

  return { onPageMessage, active: () => active.size };
}
