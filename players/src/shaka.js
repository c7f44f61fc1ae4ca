// Shaka Player through the fleet: a networking scheme plugin for http and https that fetches
// segments through it and hands everything else (manifests, licences, open ranges, anything the
// fleet does not serve) to Shaka's own HTTP plugin. It reports progress as Shaka's own fetch
// plugin does (the bandwidth estimator's samples) and the response's timeMs unrounded.
//
//   const fleet = createFleet({ origo: 'https://origo.example' });
//   registerFleetScheme(shaka, fleet);   // before player.load()
import { parseRangeHeader } from '@mutp/extension/response-head';
import { manifestKind } from '@mutp/extension/manifests';

const PROGRESS_EVERY_MS = 100; // Shaka's fetch plugin reports progress at most this often: its estimator's sample size
const SCHEMES = ['http', 'https'];

/**
 * @typedef {ReturnType<typeof import('./fleet.js').createFleet>} Fleet
 * @typedef {(uri: string, request: any, type: number, progress: (ms: number, bytes: number, left: number) => void, headers: (h: Record<string, string>) => void, config: {minBytesForProgressEvents?: number}) => any} SchemePlugin
 */

/**
 * @param {any} shaka  the shaka namespace (window.shaka, or the npm module)
 * @param {Fleet} fleet
 * @returns {() => void}  puts Shaka's own plugin back
 */
export function registerFleetScheme(shaka, fleet) {
  const { NetworkingEngine } = shaka.net;
  /** @type {SchemePlugin} Shaka's own: fetch where the browser has it */
  const own = shaka.net.HttpFetchPlugin.isSupported() ? shaka.net.HttpFetchPlugin.parse : shaka.net.HttpXHRPlugin.parse;
  const { SEGMENT, MANIFEST } = NetworkingEngine.RequestType;
  fleet.warm(); // the player is being set up: it asks for a manifest and segments next

  /** @type {SchemePlugin} */
  const plugin = (uri, request, type, progressUpdated, headersReceived, config) => {
    const range = parseRangeHeader(headerOf(request.headers, 'range'));
    if (type === MANIFEST) return learning(own(uri, request, type, progressUpdated, headersReceived, config));
    if (type !== SEGMENT || request.method !== 'GET' || range === 'unsupported') return own(uri, request, type, progressUpdated, headersReceived, config);
    const ctrl = new AbortController();
    /** @type {any} Shaka's own operation, once the fleet handed the segment back */
    let inner = null;
    const startAt = performance.now();
    let reported = { at: startAt, bytes: 0 };
    let headed = false;
    const minBytes = config?.minBytesForProgressEvents ?? 0;
    const got = fleet.fetchSegment(uri, {
      range, signal: ctrl.signal,
      onProgress: (p) => {
        if (!headed) {
          headed = true;
          headersReceived({}); // Shaka's time to first byte; the head itself comes with the response
        }
        if (reported.bytes > 0 && (p.at - reported.at < PROGRESS_EVERY_MS || p.loaded - reported.bytes < minBytes)) return;
        progressUpdated(p.at - reported.at, p.loaded - reported.bytes, p.total === null ? 0 : p.total - p.loaded);
        reported = { at: p.at, bytes: p.loaded };
      },
    });
    /** @param {unknown} [err] */
    const failure = (err) => {
      const code = ctrl.signal.aborted ? shaka.util.Error.Code.OPERATION_ABORTED : shaka.util.Error.Code.HTTP_ERROR;
      return new shaka.util.Error(shaka.util.Error.Severity.RECOVERABLE, shaka.util.Error.Category.NETWORK, code, uri, ...(ctrl.signal.aborted ? [] : [err]), type);
    };
    const done = got.then((g) => {
      if ('direct' in g) {
        if (ctrl.signal.aborted) throw failure(); // aborted while the fleet handed it back: nothing more to fetch
        inner = own(uri, request, type, progressUpdated, headersReceived, config);
        return inner.promise.then((/** @type {any} */ res) => {
          const data = res.data instanceof ArrayBuffer ? res.data : null;
          fleet.countDirect(uri, res.data?.byteLength ?? 0, g.direct, data);
          return res;
        });
      }
      const endAt = performance.now();
      if (g.data.byteLength > reported.bytes) progressUpdated(endAt - reported.at, g.data.byteLength - reported.bytes, 0);
      return {
        uri, originalUri: uri, data: g.data, status: g.head.status, headers: Object.fromEntries(g.head.headers),
        timeMs: endAt - startAt, fromCache: false, originalRequest: request,
      };
    }, (err) => { throw failure(err); });
    return new shaka.util.AbortableOperation(done, () => {
      ctrl.abort();
      return inner ? inner.abort() : Promise.resolve();
    });
  };

  /** A manifest Shaka's own plugin fetched: the fleet reads it too. @param {any} op */
  function learning(op) {
    return op.chain((/** @type {any} */ res) => {
      const url = res.uri ?? res.originalUri;
      const kind = manifestKind(url, headerOf(res.headers, 'content-type'));
      if (kind && (res.data instanceof ArrayBuffer || ArrayBuffer.isView(res.data))) fleet.learn(kind, url, new TextDecoder().decode(res.data));
      return res;
    });
  }

  for (const s of SCHEMES) NetworkingEngine.registerScheme(s, plugin, NetworkingEngine.PluginPriority.APPLICATION, true);
  return () => {
    for (const s of SCHEMES) NetworkingEngine.registerScheme(s, own, NetworkingEngine.PluginPriority.APPLICATION, true);
  };
}

/** @param {Record<string, string> | undefined} headers @param {string} name  lower case */
function headerOf(headers, name) {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return v;
  return null;
}
