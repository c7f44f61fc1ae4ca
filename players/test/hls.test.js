// hls.js through the fleet (fleetHlsConfig): the fragment loader hands hls.js the fleet's bytes
// with the stats its bandwidth estimator reads, gives a segment the fleet did not serve to
// hls.js's own loader (counted as direct), stops on abort; the playlist loader lets the fleet
// read each playlist. hls.js itself is faked: its default loader as far as these loaders use it.
import assert from 'node:assert/strict';
import { fleetHlsConfig } from '../src/hls.js';
import { fakeFleet, tick } from './fake-fleet.js';

const SEGMENT = 'https://origin.test/v/720p/seg-1.ts';
const PLAYLIST = 'https://origin.test/v/720p/index.m3u8';

/**
 * hls.js as far as the loaders use it: Hls.DefaultConfig.loader, a BaseLoader with its stats,
 * used once per instance; `loads` holds each load() it was given.
 */
function fakeHls() {
  /** @type {{loader: any, context: any, config: any, callbacks: any, startAt: number}[]} */
  const loads = [];
  class FakeBase {
    constructor(/** @type {unknown} */ _config) {
      /** @type {any} */
      this.stats = {
        aborted: false, loaded: 0, retry: 0, total: 0, chunkCount: 0, bwEstimate: 0,
        loading: { start: 0, first: 0, end: 0 }, parsing: { start: 0, end: 0 }, buffering: { start: 0, first: 0, end: 0 },
      };
      /** @type {any} */
      this.context = null;
      /** @type {any} */
      this.config = null;
      /** @type {any} */
      this.callbacks = null;
    }

    /** @param {any} context @param {any} config @param {any} callbacks */
    load(context, config, callbacks) {
      if (this.stats.loading.start) throw new Error('Loader can only be used once.');
      this.stats.loading.start = performance.now();
      this.context = context;
      this.config = config;
      this.callbacks = callbacks;
      loads.push({ loader: this, context, config, callbacks, startAt: this.stats.loading.start });
    }

    abort() {
      // hls.js's own marks the stats aborted only for a request of its own in flight
      this.callbacks?.onAbort?.(this.stats, this.context, null);
    }

    destroy() {
      this.callbacks = null;
    }
  }
  return { Hls: { DefaultConfig: { loader: FakeBase } }, loads };
}

/** Callbacks that keep what they were called with. */
function recorder() {
  /** @type {{success: any[][], error: any[][], abort: any[][]}} */
  const calls = { success: [], error: [], abort: [] };
  const callbacks = {
    onSuccess: (/** @type {any[]} */ ...a) => { calls.success.push(a); },
    onError: (/** @type {any[]} */ ...a) => { calls.error.push(a); },
    onAbort: (/** @type {any[]} */ ...a) => { calls.abort.push(a); },
    onTimeout: () => { throw new Error('no timeout expected'); },
  };
  return { callbacks, calls };
}

const config = { timeout: 20_000, maxRetry: 0, retryDelay: 0, maxRetryDelay: 0 };
/** @param {object} [over] */
const fragContext = (over = {}) => ({ url: SEGMENT, responseType: 'arraybuffer', rangeStart: 0, rangeEnd: 0, frag: {}, ...over });

/** @param {number} n @param {number} from */
const bytes = (n, from) => Uint8Array.from({ length: n }, (_, i) => (from + i * 13) & 0xff);

/** A body as the fleet gives it. @param {Uint8Array} data @param {number} status */
const served = (data, status) => ({
  data, head: { status, statusText: '', headers: [['content-length', String(data.byteLength)]] },
  startAt: 0, firstAt: 0, endAt: 0, rest: null,
});

describe('players: hls.js loaders through the fleet', () => {
  /**
   * A fragment loader made by fleetHlsConfig with fakes, asked for `context`.
   * @param {object} [context]
   */
  function fragmentLoad(context = fragContext()) {
    const f = fakeFleet();
    const h = fakeHls();
    const { fLoader: FLoader } = fleetHlsConfig(f.fleet, h.Hls);
    const loader = new FLoader(config);
    const r = recorder();
    loader.load(context, config, r.callbacks);
    return { f, h, loader, r, context };
  }
  it('fLoader: hls.js gets exactly the fleet\'s bytes, with stats from the ask to the last byte; its exclusive rangeEnd reaches the fleet as an inclusive end', async () => {
    const { f, h, loader, r, context } = fragmentLoad(fragContext({ rangeStart: 10, rangeEnd: 20 }));
    assert.equal(f.jobs.length, 1);
    assert.equal(h.loads.length, 0, 'hls.js\'s own loader was not asked');
    const [job] = f.jobs;
    assert.equal(job.url, SEGMENT);
    assert.deepEqual(job.o.range, { start: 10, end: 19 });
    assert.ok(loader.stats.loading.start > 0, 'loading.start is set when asked');

    // the origin said no length: the total is known only at the end
    job.o.onProgress({ loaded: 4, total: null, firstAt: performance.now(), at: performance.now() });
    assert.equal(loader.stats.loaded, 4, 'stats.loaded follows the progress');
    assert.equal(loader.stats.total, 0);
    assert.ok(loader.stats.loading.first >= loader.stats.loading.start);
    assert.equal(r.calls.success.length, 0);

    // the fleet's body is a view into a larger buffer: hls.js must get these 11 bytes only
    const whole = bytes(64, 1);
    const body = whole.subarray(5, 16);
    job.resolve(served(body, 206));
    await tick();
    assert.equal(r.calls.success.length, 1);
    const [response, stats, ctx] = r.calls.success[0];
    assert.ok(response.data instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(response.data), bytes(11, 1 + 5 * 13));
    assert.equal(response.code, 206);
    assert.equal(response.url, SEGMENT);
    assert.equal(ctx, context);
    assert.equal(stats, loader.stats);
    const { start, first, end } = stats.loading;
    assert.ok(start > 0 && first === start && first <= end, `loading ${start} ${first} ${end}: first is start, the fleet's wait counts as transfer`);
    assert.equal(stats.loaded, 11);
    assert.equal(stats.total, 11);
    assert.equal(r.calls.error.length, 0);
  });

  it('fLoader: in hls.js\'s progressive mode (callbacks.onProgress given) the body goes to onProgress first, then onSuccess, as hls.js\'s own loaders do', async () => {
    const f = fakeFleet();
    const h = fakeHls();
    const { fLoader: FLoader } = fleetHlsConfig(f.fleet, h.Hls);
    const loader = new FLoader(config);
    /** @type {string[]} */
    const order = [];
    /** @type {any[][]} */
    const progress = [];
    const context = fragContext();
    loader.load(context, config, {
      onSuccess: () => { order.push('success'); },
      onProgress: (/** @type {any[]} */ ...a) => { order.push('progress'); progress.push(a); },
      onError: () => { throw new Error('no error expected'); },
      onAbort: () => { throw new Error('no abort expected'); },
      onTimeout: () => { throw new Error('no timeout expected'); },
    });
    f.jobs[0].resolve(served(bytes(20, 3), 200));
    await tick();
    assert.deepEqual(order, ['progress', 'success']);
    const [stats, ctx, data] = progress[0];
    assert.equal(stats, loader.stats);
    assert.equal(ctx, context);
    assert.ok(data instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(data), bytes(20, 3));
  });

  it('fLoader: a segment the fleet did not serve goes to hls.js\'s own loader with the same context, keeps the time it was asked, and is counted as direct with its reason', async () => {
    const { f, h, loader, r, context } = fragmentLoad(fragContext());
    const asked = loader.stats.loading.start;
    assert.ok(asked > 0);
    await tick(); // the clock moves on: the own loader's load would set a later start
    f.jobs[0].resolve({ direct: 'ERR_X: y' });
    await tick();
    assert.equal(h.loads.length, 1, 'hls.js\'s own loader was asked');
    const base = h.loads[0];
    assert.equal(base.loader, loader);
    assert.equal(base.context, context);
    assert.ok(base.startAt > asked, 'the own loader ran its load (it sets loading.start)');
    assert.equal(loader.stats.loading.start, asked, 'loading.start is still when hls.js asked');

    const data = bytes(50, 3).buffer;
    base.callbacks.onSuccess({ url: SEGMENT, data, code: 200 }, loader.stats, context, null);
    assert.deepEqual(f.direct, [[SEGMENT, 50, 'ERR_X: y', data]]);
    assert.equal(r.calls.success.length, 1);
    assert.equal(r.calls.success[0][0].data, data);
    assert.equal(r.calls.error.length, 0);
  });

  it('fLoader: abort() aborts the fleet download and marks the stats aborted; a body that still arrives is not handed on', async () => {
    const { f, h, loader, r } = fragmentLoad();
    const [job] = f.jobs;
    assert.equal(job.o.signal.aborted, false);
    loader.abort();
    assert.equal(job.o.signal.aborted, true);
    assert.equal(loader.stats.aborted, true);
    assert.equal(r.calls.abort.length, 1, 'hls.js hears of the abort as from its own loader');
    job.resolve(served(bytes(8, 0), 200));
    await tick();
    assert.equal(r.calls.success.length, 0);
    assert.equal(r.calls.error.length, 0);
    assert.equal(h.loads.length, 0);
  });

  it('fLoader: a fleet failure (not an abort) is hls.js\'s onError', async () => {
    const { f, r, context } = fragmentLoad(fragContext());
    f.jobs[0].reject(new TypeError('direct fetch answered HTTP 500'));
    await tick();
    assert.equal(r.calls.error.length, 1);
    const [error, ctx] = r.calls.error[0];
    assert.match(error.text, /HTTP 500/);
    assert.equal(ctx, context);
    assert.equal(r.calls.success.length, 0);
  });

  it('pLoader: the fleet reads each playlist hls.js loads, and hls.js still gets it', () => {
    const f = fakeFleet();
    const h = fakeHls();
    const { pLoader: PLoader } = fleetHlsConfig(f.fleet, h.Hls);
    const loader = new PLoader(config);
    const r = recorder();
    const context = { url: PLAYLIST, responseType: 'text', type: 'level' };
    loader.load(context, config, r.callbacks);
    assert.equal(h.loads.length, 1);
    assert.equal(f.jobs.length, 0, 'a playlist is not a segment');
    const text = '#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\nseg-1.ts\n#EXTINF:4.0,\nseg-2.ts\n#EXT-X-ENDLIST\n';
    const response = { url: PLAYLIST, data: text, code: 200 };
    h.loads[0].callbacks.onSuccess(response, loader.stats, context, null);
    assert.deepEqual(f.learnt, [['hls', PLAYLIST, text]]);
    assert.equal(r.calls.success.length, 1);
    assert.equal(r.calls.success[0][0], response);
  });
});
