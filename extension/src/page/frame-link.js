// The page side of the MessagePort to the extension's download frame. One request = one id;
// the frame answers with `data` (a transferred ArrayBuffer), `end` or `fail`. Frame messages
// are checked at the edge: the port is only trusted as far as its shape.

const MAX_QUEUED_EVENTS = 100_000; // a broken frame must not make us buffer without bound
const MEDIA_TYPE = /^[\w.+-]{1,64}\/[\w.+-]{1,64}(\s*;[\w\s.+=";/-]{0,160})?$/; // a Content-Type value, nothing else
const MAX_QUEUED_NOTES = 500; // notes (manifests seen, fallbacks) kept until the frame answers

/**
 * @typedef {{total: number | null, size: number | null, type: string | null}} BodyHead  total: bytes of this body; size: of the
 *   whole object (Content-Range); type: the origin's Content-Type; null where the fleet did not say
 * @typedef {{t: 'data', buf: ArrayBuffer, head: BodyHead} | {t: 'alive'} | {t: 'end'} | {t: 'fail', code: string, message: string}} FrameEvent
 * @typedef {{next: () => Promise<FrameEvent>, cancel: (code?: string) => void, id: number}} FrameRequest
 */

/**
 * @param {object} o
 * @param {() => void} o.requestFrame   ask the bridge to insert the frame (idempotent)
 * @param {(msg: string) => void} o.warn
 */
export function createFrameLink({ requestFrame, warn }) {
  /** @type {MessagePort | null} */
  let port = null;
  /** @type {((p: MessagePort) => void)[]} */
  const portWaiters = [];
  let nextId = 1;
  /** @type {Map<number, {events: FrameEvent[], wake: (() => void) | null, port: MessagePort | null}>} */
  const live = new Map();
  /** @type {object[]} */
  const notes = [];

  /** @param {MessagePort} p */
  function attach(p) {
    const old = port;
    if (old) old.close();
    port = p;
    port.onmessage = (e) => onFrameMessage(e.data);
    // a frame that was replaced (navigation, reload) cannot finish what the old one started
    for (const [id, r] of live) if (old && r.port === old) push(id, r, { t: 'fail', code: 'ERR_FRAME_RESET', message: 'the download frame was replaced' });
    for (const w of portWaiters.splice(0)) w(p);
    for (const n of notes.splice(0)) p.postMessage(n);
  }

  /** @param {unknown} m */
  function onFrameMessage(m) {
    if (!m || typeof m !== 'object') return warn('frame sent a non-object message');
    const msg = /** @type {Record<string, any>} */ (m);
    if (!Number.isInteger(msg.id)) return warn('frame message without an id');
    const r = live.get(msg.id);
    if (!r) return; // cancelled already
    if (msg.t === 'data' && msg.buf instanceof ArrayBuffer) {
      const count = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null);
      const type = typeof msg.type === 'string' && MEDIA_TYPE.test(msg.type) ? msg.type : null;
      push(msg.id, r, { t: 'data', buf: msg.buf, head: { total: count(msg.total), size: count(msg.size), type } });
    } else if (msg.t === 'alive') {
      if (r.events.at(-1)?.t !== 'alive') push(msg.id, r, { t: 'alive' }); // bytes arrive at the frame, none decoded yet
    } else if (msg.t === 'end') push(msg.id, r, { t: 'end' });
    else if (msg.t === 'fail') push(msg.id, r, { t: 'fail', code: String(msg.code ?? 'ERR_FRAME').slice(0, 64), message: String(msg.message ?? '').slice(0, 500) });
    else warn(`frame sent an unknown message type ${String(msg.t).slice(0, 20)}`);
  }

  function push(id, r, ev) {
    if (r.events.length >= MAX_QUEUED_EVENTS) {
      r.events.length = 0;
      ev = { t: 'fail', code: 'ERR_FRAME_FLOOD', message: 'too many queued frame events' };
    }
    r.events.push(ev);
    if (ev.t === 'end' || ev.t === 'fail') live.delete(id);
    const w = r.wake;
    r.wake = null;
    w?.();
  }

  /** @returns {Promise<MessagePort>} */
  function getPort() {
    if (port) return Promise.resolve(port);
    requestFrame();
    return new Promise((resolve) => portWaiters.push(resolve));
  }

  /**
   * @param {string} url
   * @param {{start: number, end: number} | null} range
   * @param {string} [how]  why the page takes it for a segment
   * @param {string | null} [next]  the segment file the player likely asks after it
   * @returns {FrameRequest}
   */
  function open(url, range, how, next = null) {
    const id = nextId++;
    const r = { events: /** @type {FrameEvent[]} */ ([]), wake: null, port: /** @type {MessagePort | null} */ (null) };
    live.set(id, r);
    getPort().then((p) => {
      if (!live.has(id)) return;
      r.port = p;
      p.postMessage({ t: 'get', id, url, range, how, ...(next ? { next } : {}) });
    });
    return {
      id,
      next() {
        if (r.events.length) return Promise.resolve(r.events.shift());
        return new Promise((resolve) => { r.wake = () => resolve(r.events.shift()); });
      },
      /** @param {string} [code]  why the page gave up on it (the frame records it): ERR_NO_PROGRESS, or the page's abort */
      cancel(code) {
        live.delete(id);
        r.port?.postMessage({ t: 'abort', id, ...(code ? { code } : {}) });
      },
    };
  }

  /** A message for the frame's stats and log, sent when the frame is there (queued, bounded, until then). @param {object} msg */
  function note(msg) {
    if (port) port.postMessage(msg);
    else if (notes.length < MAX_QUEUED_NOTES) notes.push(msg);
  }

  /**
   * Tell the frame (for the popup and the log) that a request went direct, and why.
   * @param {string} url @param {string} reason  `ERR_CODE: text`
   * @param {number} [id]  the frame request it gave up on, if any (the frame recorded that download already)
   */
  function reportFallback(url, reason, id) {
    note({ t: 'fallback', url, reason, ...(id ? { id } : {}) });
  }

  /** The page will want segments soon: have the frame ready and connecting to the fleet. */
  function warm() {
    if (warmed) return;
    warmed = true;
    getPort().then((p) => p.postMessage({ t: 'warm' }));
  }
  let warmed = false;

  /** The page's media began playing: the warm-up's WebRTC connects need not wait any longer (once). */
  function playing() {
    if (played) return;
    played = true;
    note({ t: 'playing' });
  }
  let played = false;

  return { attach, open, note, warm, playing, reportFallback, hasPort: () => port !== null };
}
