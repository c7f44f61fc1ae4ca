// The page's XMLHttpRequest wrapper (src/page/xhr-wrapper.js) on its own: a matching GET is
// emulated from the frame's events (states, events, headers, body), anything else and every
// fallback is the native request.
import assert from 'node:assert/strict';
import { makeXhrClass } from '../src/page/xhr-wrapper.js';

globalThis.location ??= /** @type {any} */ ({ href: 'http://site.test/watch' });
// Node has Event but not ProgressEvent: the smallest stand-in with the fields the wrapper sets
globalThis.ProgressEvent ??= /** @type {any} */ (class ProgressEvent extends Event {
  /** @param {string} type @param {{lengthComputable?: boolean, loaded?: number, total?: number}} [init] */
  constructor(type, init = {}) {
    super(type);
    this.lengthComputable = init.lengthComputable ?? false;
    this.loaded = init.loaded ?? 0;
    this.total = init.total ?? 0;
  }
});

const SEGMENT = 'http://cdn.test/videoplayback?id=1';
const OTHER = 'http://cdn.test/page.html';
const NEXT_SEGMENT = 'http://cdn.test/videoplayback?id=2';
const tick = () => new Promise((r) => setTimeout(r, 0));

/** The native XMLHttpRequest as far as the wrapper uses it: records what reached it. */
class NativeXhr extends EventTarget {
  /** @type {string[]} */
  static calls = [];
  responseType = '';
  timeout = 0;
  withCredentials = false;
  get readyState() { return 0; }
  get status() { return 0; }
  /** @param {string} method @param {string} url */
  open(method, url) { NativeXhr.calls.push(`open ${method} ${url}`); }
  /** @param {string} k @param {string} v */
  setRequestHeader(k, v) { NativeXhr.calls.push(`header ${k}: ${v}`); }
  send() { NativeXhr.calls.push('send'); }
  abort() { NativeXhr.calls.push('abort'); }
}

/**
 * A frame link whose requests answer with the given events, in order.
 * @param {(url: string) => any[]} script  events of the request for `url`
 */
function fakeLink(script) {
  const opened = /** @type {{url: string, range: any, how: string, next?: string | null}[]} */ ([]);
  const fallbacks = /** @type {{url: string, reason: string}[]} */ ([]);
  const cancels = /** @type {(string | undefined)[]} */ ([]);
  return {
    opened, fallbacks, cancels,
    /** @param {string} url @param {any} range @param {string} how @param {string | null} [next] */
    open(url, range, how, next) {
      opened.push({ url, range, how, ...(next ? { next } : {}) });
      const events = script(url).slice();
      return { id: opened.length, next: () => (events.length ? Promise.resolve(events.shift()) : new Promise(() => {})), cancel: (/** @type {string} */ c) => cancels.push(c) };
    },
    /** @param {string} url @param {string} reason */
    reportFallback(url, reason) { fallbacks.push({ url, reason }); },
  };
}

const HEAD = { total: 6, size: 6, type: 'video/mp4' };
const bytes = (/** @type {number[]} */ a) => new Uint8Array(a).buffer;
const config = {
  serveReason: (/** @type {string} */ url) => (url.includes('/videoplayback') ? 'pattern' : null),
  detect: false, learn() {}, manifestOf: () => null, nextOf: (/** @type {string} */ url) => (url === SEGMENT ? NEXT_SEGMENT : null), noProgressTimeoutMs: 1000,
};

/** @param {ReturnType<typeof fakeLink>} link */
function xhrClass(link) {
  NativeXhr.calls = [];
  const direct = () => Promise.reject(new Error('no direct fetch in these tests'));
  return makeXhrClass({ OrigXHR: /** @type {any} */ (NativeXhr), origFetch: /** @type {any} */ (direct), config: async () => config, configNow: () => config,
    link: /** @type {any} */ (link), warn() {} });
}

/** Every event the page would see, with readyState at the time. @param {EventTarget & {readyState: number}} x */
function record(x) {
  const seen = /** @type {string[]} */ ([]);
  for (const t of ['readystatechange', 'loadstart', 'progress', 'load', 'loadend', 'error', 'abort', 'timeout']) {
    x.addEventListener(t, (e) => seen.push(t === 'readystatechange' ? `rsc${x.readyState}` : t === 'progress' ? `progress${/** @type {any} */ (e).loaded}` : t));
  }
  return seen;
}

/** @param {EventTarget} x */
const loadEnd = (x) => new Promise((r) => x.addEventListener('loadend', r, { once: true }));

describe('extension page: XMLHttpRequest wrapper', () => {
  it('a matching GET is served from the frame: states 1–4, progress, load, headers and the exact bytes; nothing native', async () => {
    const link = fakeLink(() => [{ t: 'data', buf: bytes([1, 2, 3]), head: HEAD }, { t: 'data', buf: bytes([4, 5, 6]), head: HEAD }, { t: 'end' }]);
    const XHR = xhrClass(link);
    const x = new XHR();
    const seen = record(x);
    x.open('GET', SEGMENT);
    x.responseType = 'arraybuffer';
    x.send();
    await loadEnd(x);
    assert.deepEqual(seen, ['rsc1', 'loadstart', 'rsc2', 'rsc3', 'progress3', 'progress6', 'rsc4', 'load', 'loadend']);
    assert.equal(x.status, 200);
    assert.deepEqual([...new Uint8Array(x.response)], [1, 2, 3, 4, 5, 6]);
    assert.equal(x.getResponseHeader('Content-Type'), 'video/mp4');
    assert.equal(x.getResponseHeader('content-length'), '6');
    assert.equal(x.responseURL, SEGMENT);
    assert.deepEqual(link.opened, [{ url: SEGMENT, range: null, how: 'pattern', next: NEXT_SEGMENT }], 'with the next segment file the manifests name');
    assert.deepEqual(NativeXhr.calls, []);
  });

  it('a Range header asks the frame for that range and answers 206 with Content-Range; text responses decode', async () => {
    const link = fakeLink(() => [{ t: 'data', buf: new TextEncoder().encode('hello!').buffer, head: HEAD }, { t: 'end' }]);
    const x = new (xhrClass(link))();
    x.open('GET', SEGMENT);
    x.setRequestHeader('Range', 'bytes=10-15');
    x.send();
    await loadEnd(x);
    assert.deepEqual(link.opened[0].range, { start: 10, end: 15 });
    assert.equal(x.status, 206);
    assert.equal(x.getResponseHeader('content-range'), 'bytes 10-15/6');
    assert.equal(x.responseText, 'hello!');
  });

  it('a URL that does not match, a POST and a synchronous request are native, untouched', async () => {
    const link = fakeLink(() => []);
    const XHR = xhrClass(link);
    for (const [method, url, async] of /** @type {const} */ ([['GET', OTHER, true], ['POST', SEGMENT, true], ['GET', SEGMENT, false]])) {
      const x = new XHR();
      x.open(method, url, async);
      x.send();
    }
    assert.deepEqual(NativeXhr.calls, [`open GET ${OTHER}`, 'send', `open POST ${SEGMENT}`, 'send', `open GET ${SEGMENT}`, 'send']);
    assert.equal(link.opened.length, 0);
  });

  it('the frame fails before the first byte: the same request goes native, with its headers, and the fallback is reported', async () => {
    const link = fakeLink(() => [{ t: 'fail', code: 'ERR_ALL_PROXIES_FAILED', message: 'gone' }]);
    const x = new (xhrClass(link))();
    x.open('GET', SEGMENT);
    x.setRequestHeader('Range', 'bytes=0-9');
    x.send();
    for (let i = 0; i < 10 && !NativeXhr.calls.includes('send'); i++) await tick();
    assert.deepEqual(NativeXhr.calls, [`open GET ${SEGMENT}`, 'header Range: bytes=0-9', 'send']);
    assert.equal(link.fallbacks.length, 1);
    assert.match(link.fallbacks[0].reason, /^ERR_ALL_PROXIES_FAILED/);
  });

  it('a responseType the wrapper does not emulate (document) is native, and says why', async () => {
    const link = fakeLink(() => []);
    const x = new (xhrClass(link))();
    x.open('GET', SEGMENT);
    x.responseType = 'document';
    x.send();
    for (let i = 0; i < 10 && !NativeXhr.calls.includes('send'); i++) await tick();
    assert.deepEqual(NativeXhr.calls, [`open GET ${SEGMENT}`, 'send']);
    assert.match(link.fallbacks[0]?.reason ?? '', /^ERR_RESPONSE_TYPE/);
  });

  it('abort() mid-body: abort and loadend, status 0, readyState back to 0, the frame request cancelled', async () => {
    const link = fakeLink(() => [{ t: 'data', buf: bytes([1, 2, 3]), head: HEAD }]); // then nothing: the body is still coming
    const x = new (xhrClass(link))();
    const seen = record(x);
    x.open('GET', SEGMENT);
    x.send();
    x.addEventListener('progress', () => x.abort(), { once: true });
    await loadEnd(x);
    assert.deepEqual(seen.slice(-3), ['rsc4', 'abort', 'loadend']);
    assert.equal(x.status, 0);
    assert.equal(x.readyState, 0);
    assert.deepEqual(link.cancels, ['ERR_ABORTED']);
    assert.deepEqual(NativeXhr.calls, []);
  });
});
