// `fetch` as the page sees it: segments (pattern matches and detected ones) are served through
// the fleet (with a silent direct fallback); manifests go direct and are read for their segment
// URLs before the page gets them; everything else goes to the original fetch untouched.
import { parseRangeHeader } from './response-head.js';
import { learnFromText } from './manifest-reader.js';
import { serveThroughFleet } from './fleet-serve.js';

/**
 * What a fetch call asks for, read without consuming anything.
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 */
export function describeFetch(input, init) {
  const isReq = typeof Request === 'function' && input instanceof Request;
  const url = new URL(isReq ? input.url : String(input), location.href).href;
  const method = String(init?.method ?? (isReq ? input.method : 'GET')).toUpperCase();
  const headers = new Headers(init?.headers ?? (isReq ? input.headers : undefined));
  const signal = init?.signal ?? (isReq ? input.signal : null);
  return { url, method, range: headers.get('range'), signal };
}

/**
 * @param {object} o
 * @param {typeof fetch} o.origFetch
 * @param {() => Promise<import('./main-world.js').PageConfig | null>} o.config
 * @param {ReturnType<typeof import('./frame-link.js').createFrameLink>} o.link
 * @param {(msg: string) => void} o.warn
 * @returns {typeof fetch}
 */
export function wrapFetch({ origFetch, config, link, warn }) {
  return async function fetch(input, init) {
    let d;
    try {
      d = describeFetch(input, init);
    } catch {
      return origFetch(input, init); // let the browser produce its own error
    }
    if (d.method !== 'GET') return origFetch(input, init);
    const cfg = await config();
    const how = cfg ? cfg.serveReason(d.url, d.range !== null) : null;
    if (!cfg || !how) {
      const res = await origFetch(input, init);
      if (cfg?.detect) await readManifest(cfg, res, d.url);
      return res;
    }
    const range = parseRangeHeader(d.range);
    if (range === 'unsupported') {
      link.reportFallback(d.url, `ERR_RANGE_UNSUPPORTED: ${String(d.range).slice(0, 60)}`);
      return origFetch(input, init);
    }
    const served = await serveThroughFleet({
      link, url: d.url, range, signal: d.signal, noProgressMs: cfg.noProgressTimeoutMs, how, next: cfg.nextOf(d.url),
      direct: () => origFetch(input, init), warn,
    });
    if (!served) return origFetch(input, init);
    const it = served.body;
    const stream = new ReadableStream({
      async pull(ctrl) {
        try {
          const { value, done } = await it.next();
          if (done) ctrl.close();
          else ctrl.enqueue(value);
        } catch (err) {
          ctrl.error(err);
        }
      },
      cancel() {
        it.return(undefined);
      },
    });
    const res = new Response(stream, { status: served.head.status, statusText: served.head.statusText, headers: served.head.headers });
    Object.defineProperty(res, 'url', { value: d.url }); // a constructed Response has no URL; the player may read it
    return res;
  };
}

/**
 * A manifest response is read (a copy of it) before the page gets it, so its segments are known
 * when the player asks for them.
 * @param {import('./main-world.js').PageConfig} cfg
 * @param {Response} res
 * @param {string} requested
 */
async function readManifest(cfg, res, requested) {
  if (!res.ok || res.type === 'opaque') return;
  const url = res.url || requested;
  const kind = cfg.manifestOf(url, res.headers.get('content-type'));
  if (!kind) return;
  try {
    learnFromText(cfg, kind, url, await res.clone().text());
  } catch {
    // a body the page cannot read either
  }
}
