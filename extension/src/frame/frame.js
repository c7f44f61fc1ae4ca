// The hidden, web-accessible download frame: runs ProxyClientLib (WebRTC works here, outside
// the page's CSP), answers the page over a MessagePort with transferred ArrayBuffers, and
// reports every download's record and every fallback to the background.
import browser from '../shared/api.js';
import { createClient } from '@mutp/proxyclientlib';
import { loadSettings, clientId, SETTINGS_KEY } from '../shared/storage.js';
import { compilePatterns } from '../shared/patterns.js';
import { chooseModeAndN } from '../shared/choose.js';
import { TAG } from '../shared/page-messages.js';
import { createInOrder } from './in-order.js';
import { parsePageMessage } from './page-request.js';

// Streaming the MUTP transport's decoded pieces corrupted the player's media in the first
// end-to-end run (offsets not yet understood): until verified, the body is sent when complete.
const STREAM_DECODED_PIECES = true;
const ALIVE_EVERY_MS = 250; // progress heartbeat to the page's stall timer; HTTP modes deliver their bytes only at the end
const logger = { warn: (...a) => console.warn('[mutp frame]', ...a) };

let settings = await loadSettings();
let matches = compilePatterns(settings.patterns);
const cid = await clientId();
let client = createClient({ origo: settings.origoUrl, clientId: cid, logger });

browser.storage.onChanged.addListener(async (changes, area) => {
  if (area !== 'local' || !(SETTINGS_KEY in changes)) return;
  const before = settings.origoUrl;
  settings = await loadSettings();
  matches = compilePatterns(settings.patterns);
  if (settings.origoUrl !== before) {
    client.close();
    client = createClient({ origo: settings.origoUrl, clientId: cid, logger });
  }
});

/** @type {Map<number, AbortController>} */
const active = new Map();
const channel = new MessageChannel();
const port = channel.port1;

/** @param {object} msg */
const toBackground = (msg) => browser.runtime.sendMessage(msg).catch((err) => logger.warn(`background unreachable: ${err?.message}`));

port.onmessage = (e) => {
  const m = parsePageMessage(e.data);
  if (m.t === 'bad') return logger.warn(`ignoring a page message: ${m.why}`);
  if (m.t === 'abort') return active.get(m.id)?.abort(Object.assign(new Error('the page aborted the request'), { code: 'ERR_ABORTED' }));
  if (m.t === 'fallback') return toBackground({ t: 'fallback', url: m.url, reason: m.reason });
  serve(m.id, m.url, m.range);
};

/**
 * @param {number} id
 * @param {string} url
 * @param {{start: number, end: number} | null} range
 */
async function serve(id, url, range) {
  if (!settings.enabled || !matches(url)) {
    port.postMessage({ t: 'fail', id, code: 'ERR_NOT_MATCHED', message: 'the URL does not match the extension settings' });
    return;
  }
  const { mode, n } = chooseModeAndN(settings);
  const ctrl = new AbortController();
  active.set(id, ctrl);
  let total = range ? range.end - range.start + 1 : null;
  const order = createInOrder((buf) => port.postMessage({ t: 'data', id, buf, total }, [buf]));
  let lastAlive = 0;
  const where = settings.proximity && settings.location ? { lat: settings.location.lat, lon: settings.location.lon } : {};
  try {
    const { data, stats } = await client.download(url, {
      mode, proxies: n, range, signal: ctrl.signal, log: false, ...where,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastAlive >= ALIVE_EVERY_MS) {
          lastAlive = now;
          port.postMessage({ t: 'alive', id });
        }
        if (Number.isSafeInteger(p.objectBytes)) total = p.objectBytes;
        const chunks = /** @type {{chunks?: {offset: number, bytes: Uint8Array}[]}} */ (p).chunks;
        if (STREAM_DECODED_PIECES && Array.isArray(chunks)) for (const c of chunks) order.push(c.offset, c.bytes);
      },
    });
    total = data.byteLength;
    order.finish(data);
    port.postMessage({ t: 'end', id });
    toBackground({ t: 'record', record: stats });
  } catch (err) {
    const e = /** @type {Error & {code?: string, stats?: {proxyIds?: string[]}}} */ (err);
    port.postMessage({ t: 'fail', id, code: e?.code ?? 'ERR_UNKNOWN', message: String(e?.message ?? e).slice(0, 300) });
    // a failed download that reached proxies is a measurement too (ProxyClientLib's rule)
    if (e?.stats && e.stats.proxyIds?.length > 0 && e.code !== 'ERR_ABORTED') toBackground({ t: 'record', record: e.stats });
  } finally {
    active.delete(id);
  }
}

window.parent.postMessage({ [TAG]: 'port' }, '*', [channel.port2]);
