// XMLHttpRequest as the page sees it: a subclass of the real one. Matching asynchronous GETs are
// emulated (readyState, readystatechange, loadstart/progress/load/loadend, responseType
// arraybuffer/blob/text/json); anything else, and every fallback, is the native request.
import { parseRangeHeader } from './response-head.js';
import { serveThroughFleet, abortReason } from './fleet-serve.js';
import { learnFromText } from './manifest-reader.js';
import { concat } from '@mutp/proxyclientlib/capped-body';

const EMULATED_TYPES = ['', 'text', 'arraybuffer', 'blob', 'json']; // 'document' needs the HTML parser: native

/**
 * @param {object} o
 * @param {typeof XMLHttpRequest} o.OrigXHR
 * @param {typeof fetch} o.origFetch
 * @param {() => Promise<import('./main-world.js').PageConfig | null>} o.config
 * @param {() => import('./main-world.js').PageConfig | null | undefined} o.configNow  undefined while not known yet
 * @param {ReturnType<typeof import('./frame-link.js').createFrameLink>} o.link
 * @param {(msg: string) => void} o.warn
 */
export function makeXhrClass({ OrigXHR, origFetch, config, configNow, link, warn }) {
  return class XMLHttpRequest extends OrigXHR {
    /** emulation state; null = the native object is in charge */
    #s = null;
    #suppress = 0;

    constructor() {
      super();
      // events the native object fires while we hand a request over to it are not the page's
      this.addEventListener('readystatechange', (e) => { if (this.#suppress) e.stopImmediatePropagation(); });
      // added before any of the page's listeners: a manifest is read before the player parses it
      this.addEventListener('readystatechange', () => {
        if (this.#s || super.readyState !== 4) return;
        const cfg = configNow();
        if (cfg?.detect) this.#readManifest(cfg);
      });
    }

    /** @param {import('./main-world.js').PageConfig} cfg */
    #readManifest(cfg) {
      if (super.status < 200 || super.status > 299) return;
      const url = super.responseURL;
      const kind = cfg.manifestOf(url, super.getResponseHeader('content-type'));
      if (!kind) return;
      const rt = this.responseType;
      let text = null;
      if (rt === '' || rt === 'text') text = super.responseText;
      else if (rt === 'arraybuffer' && super.response instanceof ArrayBuffer) text = new TextDecoder().decode(super.response);
      if (text !== null) learnFromText(cfg, kind, url, text);
    }

    open(method, url, async = true, user, password) {
      this.#s = null;
      let abs = null;
      try {
        abs = new URL(String(url), location.href).href;
      } catch {
        // native open throws the right SyntaxError
      }
      const cfg = configNow();
      // a Range header (set after open) can still make it a segment when detection is on
      const candidate = abs !== null && String(method).toUpperCase() === 'GET' && async !== false && /^https?:/.test(abs) &&
        (cfg === undefined || (cfg !== null && (cfg.serveReason(abs, cfg.detect) !== null)));
      if (!candidate) return super.open(method, url, async, user, password);
      this.#s = {
        readyState: 1, method, url, abs, user, password, headers: /** @type {[string, string][]} */ ([]),
        status: 0, statusText: '', respHeaders: /** @type {[string, string][]} */ ([]), response: null, text: null,
        ctrl: null, sent: false, mimeOverride: null,
      };
      this.#fire('readystatechange');
    }

    setRequestHeader(name, value) {
      if (!this.#s) return super.setRequestHeader(name, value);
      if (this.#s.readyState !== 1 || this.#s.sent) throw new DOMException('setRequestHeader needs an opened, unsent request', 'InvalidStateError');
      this.#s.headers.push([String(name), String(value)]);
    }

    overrideMimeType(mime) {
      if (!this.#s) return super.overrideMimeType(mime);
      this.#s.mimeOverride = String(mime);
    }

    send(body) {
      const s = this.#s;
      if (!s) return super.send(body);
      if (s.readyState !== 1 || s.sent) throw new DOMException('send needs an opened, unsent request', 'InvalidStateError');
      s.sent = true;
      this.#run(s, body);
    }

    abort() {
      const s = this.#s;
      if (!s) return super.abort();
      if (s.ctrl) s.ctrl.abort(new DOMException('aborted', 'AbortError'));
      else if (s.sent && s.readyState !== 4) this.#failed(s, 'abort');
    }

    get readyState() { return this.#s ? this.#s.readyState : super.readyState; }
    get status() { return this.#s ? this.#s.status : super.status; }
    get statusText() { return this.#s ? this.#s.statusText : super.statusText; }
    get responseURL() { return this.#s ? (this.#s.readyState >= 2 ? this.#s.abs : '') : super.responseURL; }
    get response() {
      if (!this.#s) return super.response;
      if (this.responseType === '' || this.responseType === 'text') return this.responseText;
      return this.#s.readyState === 4 ? this.#s.response : null;
    }
    get responseText() {
      if (!this.#s) return super.responseText;
      if (this.responseType !== '' && this.responseType !== 'text') throw new DOMException('responseText needs responseType "" or "text"', 'InvalidStateError');
      return this.#s.text ?? '';
    }
    getResponseHeader(name) {
      if (!this.#s) return super.getResponseHeader(name);
      if (this.#s.readyState < 2) return null;
      const n = String(name).toLowerCase();
      const hit = this.#s.respHeaders.filter(([k]) => k === n).map(([, v]) => v);
      return hit.length ? hit.join(', ') : null;
    }
    getAllResponseHeaders() {
      if (!this.#s) return super.getAllResponseHeaders();
      if (this.#s.readyState < 2) return '';
      return this.#s.respHeaders.map(([k, v]) => `${k}: ${v}\r\n`).join('');
    }

    #fire(type, init) {
      this.dispatchEvent(init ? new ProgressEvent(type, init) : new Event(type));
    }

    /** Hand the request to the native XHR, as if we had never touched it. */
    #native(s, body) {
      this.#s = null;
      this.#suppress++;
      try {
        super.open(s.method, s.url, true, s.user, s.password);
      } finally {
        this.#suppress--;
      }
      for (const [k, v] of s.headers) super.setRequestHeader(k, v);
      if (s.mimeOverride) super.overrideMimeType(s.mimeOverride);
      super.send(body);
    }

    async #run(s, body) {
      const cfg = await config();
      if (this.#s !== s) return; // re-opened meanwhile
      const rangeHeader = s.headers.find(([k]) => k.toLowerCase() === 'range')?.[1] ?? null;
      const range = parseRangeHeader(rangeHeader);
      const how = cfg ? cfg.serveReason(s.abs, rangeHeader !== null) : null;
      if (!cfg || !how || range === 'unsupported' || !EMULATED_TYPES.includes(this.responseType)) {
        if (how && range === 'unsupported') link.reportFallback(s.abs, `ERR_RANGE_UNSUPPORTED: ${String(rangeHeader).slice(0, 60)}`);
        else if (how) link.reportFallback(s.abs, `ERR_RESPONSE_TYPE: XHR responseType ${this.responseType} is served natively`);
        return this.#native(s, body);
      }
      const ctrl = new AbortController();
      s.ctrl = ctrl;
      let timer = null;
      if (this.timeout > 0) timer = setTimeout(() => ctrl.abort(new DOMException('timeout', 'TimeoutError')), this.timeout);
      this.#fire('loadstart', { lengthComputable: false, loaded: 0, total: 0 });
      const headers = Object.fromEntries(s.headers);
      const direct = () => origFetch(s.abs, { headers, credentials: this.withCredentials ? 'include' : 'same-origin', signal: ctrl.signal });
      try {
        const served = await serveThroughFleet({ link, url: s.abs, range, signal: ctrl.signal, noProgressMs: cfg.noProgressTimeoutMs, how, next: cfg.nextOf(s.abs), direct, warn });
        if (this.#s !== s) return;
        if (!served) {
          clearTimeout(timer);
          s.ctrl = null;
          return this.#native(s, body);
        }
        s.status = served.head.status;
        s.statusText = served.head.statusText;
        s.respHeaders = served.head.headers;
        const total = Number(served.head.headers.find(([k]) => k === 'content-length')?.[1] ?? 0);
        s.readyState = 2;
        this.#fire('readystatechange');
        /** @type {Uint8Array[]} */
        const parts = [];
        let loaded = 0;
        for await (const chunk of served.body) {
          if (this.#s !== s) return;
          parts.push(chunk);
          loaded += chunk.byteLength;
          if (s.readyState === 2) {
            s.readyState = 3;
            this.#fire('readystatechange');
          }
          this.#fire('progress', { lengthComputable: total > 0, loaded, total });
        }
        clearTimeout(timer);
        s.ctrl = null;
        const bytes = concat(parts, loaded);
        const type = s.respHeaders.find(([k]) => k === 'content-type')?.[1] ?? '';
        const rt = this.responseType;
        if (rt === 'arraybuffer') s.response = ownBuffer(bytes);
        else if (rt === 'blob') s.response = new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type });
        else {
          s.text = new TextDecoder().decode(bytes);
          if (rt === 'json') {
            try {
              s.response = JSON.parse(s.text);
            } catch {
              s.response = null;
            }
          }
        }
        s.readyState = 4;
        this.#fire('readystatechange');
        this.#fire('load', { lengthComputable: total > 0, loaded, total: total || loaded });
        this.#fire('loadend', { lengthComputable: total > 0, loaded, total: total || loaded });
      } catch (err) {
        clearTimeout(timer);
        s.ctrl = null;
        if (this.#s !== s) return;
        const kind = ctrl.signal.aborted ? (abortReason(ctrl.signal)?.name === 'TimeoutError' ? 'timeout' : 'abort') : 'error';
        if (kind === 'error') warn(`request failed: ${/** @type {Error} */ (err)?.message}`);
        this.#failed(s, kind);
      }
    }

    /** @param {'abort' | 'error' | 'timeout'} kind */
    #failed(s, kind) {
      s.status = 0;
      s.statusText = '';
      s.respHeaders = [];
      s.response = null;
      s.text = null;
      s.readyState = 4;
      this.#fire('readystatechange');
      this.#fire(kind, { lengthComputable: false, loaded: 0, total: 0 });
      this.#fire('loadend', { lengthComputable: false, loaded: 0, total: 0 });
      if (kind === 'abort') s.readyState = 0; // spec: abort() leaves the request UNSENT, without an event
    }
  };
}

/** The bytes' own ArrayBuffer, copied only when they are a view into a larger one. @param {Uint8Array} bytes */
function ownBuffer(bytes) {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
}
