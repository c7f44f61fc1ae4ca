// hls.js through the fleet: an fLoader that fetches media fragments (and init sections) through
// it, and a pLoader that lets it read the playlists (which fragment follows which: the proxies
// fetch the next one meanwhile). Anything the fleet does not serve goes to hls.js's own loader.
// The loader's stats are what hls.js's bandwidth estimator reads: loading.start when asked,
// loading.end and loaded/total as they happen, and loading.first = loading.start (no latency:
// "Timing for the players' bandwidth estimators" in fleet.js).
//
//   const fleet = createFleet({ origo: 'https://origo.example' });
//   const hls = new Hls({ ...fleetHlsConfig(fleet, Hls) });

/**
 * @typedef {import('hls.js').LoaderContext & {frag?: unknown}} Context
 * @typedef {import('hls.js').LoaderCallbacks<any>} Callbacks
 * @typedef {import('hls.js').LoaderConfiguration} Config
 * @typedef {ReturnType<typeof import('./fleet.js').createFleet>} Fleet
 */

/**
 * The byte range of a context (hls.js's rangeEnd is exclusive), null for a whole file, or
 * 'open' for a range without an end, which the fleet does not serve.
 * @param {Context} c
 * @returns {{start: number, end: number} | null | 'open'}
 */
function contextRange(c) {
  if (Number.isSafeInteger(c.rangeEnd) && /** @type {number} */ (c.rangeEnd) > 0) return { start: c.rangeStart ?? 0, end: /** @type {number} */ (c.rangeEnd) - 1 };
  return c.rangeStart ? 'open' : null;
}

/**
 * @param {Fleet} fleet
 * @param {{DefaultConfig: {loader: any}}} Hls  the hls.js class (its default loader is the fallback)
 * @returns {{fLoader: any, pLoader: any}}  hls.js config entries
 */
export function fleetHlsConfig(fleet, Hls) {
  const Base = Hls.DefaultConfig.loader;
  fleet.warm(); // the player was just made: it asks for a playlist and segments next

  class FleetFragmentLoader extends Base {
    /** @type {AbortController | null} */
    #ctrl = null;

    /** @param {Context} context @param {Config} config @param {Callbacks} callbacks */
    load(context, config, callbacks) {
      const range = contextRange(context);
      if (range === 'open' || (context.responseType && context.responseType !== 'arraybuffer')) return super.load(context, config, callbacks);
      const stats = this.stats;
      if (stats.loading.start) throw new Error('Loader can only be used once.'); // as hls.js's own loaders
      stats.loading.start = performance.now();
      this.context = context;
      this.config = config;
      this.callbacks = callbacks;
      const ctrl = new AbortController();
      this.#ctrl = ctrl;
      const url = new URL(context.url, globalThis.location?.href).href;
      fleet.fetchSegment(url, {
        range, signal: ctrl.signal,
        onProgress: (p) => {
          if (!stats.loading.first) stats.loading.first = stats.loading.start; // the wait was transfer: hls.js subtracts "first - start" as latency
          stats.loaded = p.loaded;
          stats.total = p.total ?? 0;
          stats.chunkCount += 1;
        },
      }).then((got) => {
        if (ctrl.signal.aborted || this.callbacks !== callbacks) return;
        if ('direct' in got) return this.#direct(context, config, callbacks, got.direct);
        stats.loading.end = Math.max(stats.loading.first, performance.now());
        stats.loaded = got.data.byteLength;
        stats.total = got.data.byteLength;
        const d = got.data;
        const data = /** @type {ArrayBuffer} */ (d.byteOffset === 0 && d.byteLength === d.buffer.byteLength ? d.buffer : d.slice().buffer);
        // hls.js's progressive mode (config.progressive) demuxes only what onProgress hands it; its
        // own loaders hand the body there, then to onSuccess, and so does this one (one chunk)
        callbacks.onProgress?.(stats, context, data, null);
        callbacks.onSuccess({ url: context.url, data, code: got.head.status }, stats, context, null);
      }, (err) => {
        if (ctrl.signal.aborted || this.callbacks !== callbacks) return;
        callbacks.onError({ code: 0, text: String(err?.message ?? err) }, context, null, stats);
      });
    }

    /**
     * hls.js's own loader fetches it; the stats keep the time since it was first asked.
     * @param {Context} context @param {Config} config @param {Callbacks} callbacks @param {string} reason
     */
    #direct(context, config, callbacks, reason) {
      const asked = this.stats.loading.start;
      this.stats.loading.start = 0;
      super.load(context, config, {
        ...callbacks,
        onSuccess: (response, stats, ctx, details) => {
          const bytes = response.data instanceof ArrayBuffer ? response.data.byteLength : 0;
          fleet.countDirect(new URL(context.url, globalThis.location?.href).href, bytes, reason, response.data instanceof ArrayBuffer ? response.data : null);
          callbacks.onSuccess(response, stats, ctx, details);
        },
      });
      this.stats.loading.start = asked;
    }

    abort() {
      this.#ctrl?.abort();
      if (this.#ctrl) this.stats.aborted = true;
      super.abort();
    }

    destroy() {
      this.#ctrl?.abort();
      super.destroy();
    }
  }

  class FleetPlaylistLoader extends Base {
    /** @param {Context} context @param {Config} config @param {Callbacks} callbacks */
    load(context, config, callbacks) {
      super.load(context, config, {
        ...callbacks,
        onSuccess: (response, stats, ctx, details) => {
          if (typeof response.data === 'string') fleet.learn('hls', new URL(response.url || context.url, globalThis.location?.href).href, response.data);
          callbacks.onSuccess(response, stats, ctx, details);
        },
      });
    }
  }

  return { fLoader: FleetFragmentLoader, pLoader: FleetPlaylistLoader };
}
