// dash.js through the fleet (fleetDashLoader): the extended XHRLoader hands dash.js the fleet's
// bytes with the progress events its throughput model times, gives what the fleet does not serve
// to dash.js's own XHRLoader (counted as direct; MPDs read by the fleet), and aborts, times out
// and fails as an XMLHttpRequest would. dash.js itself is faked: extend() as dash.js 5 does it.
import assert from 'node:assert/strict';
import { fleetDashLoader, fleetRange } from '../src/dash.js';
import { fakeFleet, tick } from './fake-fleet.js';

const SEGMENT = 'https://origin.test/v/seg-1.m4s';
const MPD = 'https://origin.test/v/a.mpd';
/** The progress event a fleet download gives dash.js when asked: its first byte, so the wait counts as transfer (dash.js times throughput from it). */
const ASKED = ['progress', 0, 0, false, 0];

/**
 * dash.js's own XHRLoader as far as the extension sees it: load() takes the handlers from the
 * request then (as it copies them onto its XMLHttpRequest); `finish` answers the last load.
 */
function fakeXhrLoader() {
  /** @type {{req: any, res: any, on: any}[]} */
  const loads = [];
  let aborts = 0;
  let resets = 0;
  const loader = {
    load(/** @type {any} */ req, /** @type {any} */ res) {
      loads.push({ req, res, on: { ...req.customData } });
      req.customData.abort = () => { aborts += 1; };
      return true;
    },
    abort() { aborts += 1; },
    getXhr() { return null; },
    reset() { resets += 1; },
    resetInitialSettings() { resets += 1; },
  };
  /** @param {number} status @param {unknown} data */
  const finish = (status, data) => {
    const { res, on } = loads[loads.length - 1];
    res.url = res.request?.url ?? loads[loads.length - 1].req.url;
    res.status = status;
    res.data = data;
    on.onloadend();
  };
  return { loader, loads, finish, aborts: () => aborts, resets: () => resets };
}

/**
 * The loader as dash.js makes it: FactoryMaker.merge with override makes the parent, runs the
 * extension with {context, factory, parent}, then replaces the parent's own methods by the
 * extension's.
 */
function rig() {
  const f = fakeFleet();
  const x = fakeXhrLoader();
  /** @type {any} */
  let ext = null;
  /** @type {object[]} */
  const settings = [];
  fleetDashLoader({
    extend: (name, child, override) => { assert.equal(name, 'XHRLoader'); assert.equal(override, true); ext = child; },
    updateSettings: (s) => { settings.push(s); },
  }, f.fleet);
  const parent = /** @type {any} */ (x.loader);
  const made = ext.apply({ context: {}, factory: {}, parent });
  for (const prop in made) if (Object.hasOwn(parent, prop)) parent[prop] = made[prop];
  return { ...f, ...x, loader: parent, settings };
}

/**
 * A request as HTTPLoader hands it over, with handlers that log what HTTPLoader would see:
 * each progress event with the trace it makes of it (bytes since the last event), loadend,
 * abort and timeout.
 * @param {{type?: string, url?: string, headers?: Record<string, string>, method?: string, responseType?: string, timeout?: number, credentials?: string}} [o]
 */
function request(o = {}) {
  /** @type {any[]} */
  const log = [];
  let last = 0;
  const req = {
    url: o.url ?? SEGMENT, method: o.method ?? 'GET', responseType: o.responseType ?? 'arraybuffer',
    headers: o.headers ?? {}, credentials: o.credentials ?? 'omit', timeout: o.timeout ?? 0, body: null,
    customData: {
      request: { type: o.type ?? 'MediaSegment' },
      onprogress: (/** @type {any} */ e) => { log.push(['progress', e.loaded, e.total, e.lengthComputable, e.loaded - last]); last = e.loaded; },
      onloadend: () => log.push(['loadend']),
      onabort: () => log.push(['abort']),
      ontimeout: (/** @type {any} */ e) => log.push(['timeout', e.loaded]),
      abort: undefined,
    },
  };
  const res = { request: req, url: null, status: 0, statusText: '', headers: {}, data: null, resourceTiming: { startTime: 0, encodedBodySize: 0 } };
  return { req: /** @type {any} */ (req), res: /** @type {any} */ (res), log };
}


describe('players: dash.js through the fleet (XHRLoader extension)', () => {
  it('a segment the fleet serves reaches dash.js byte-exact, its progress as the pieces arrive', async () => {
    const r = rig();
    assert.equal(r.warmed(), 1, 'the fleet warms up when the player is extended');
    assert.deepEqual(r.settings, [{ streaming: { abr: { throughput: { useResourceTimingApi: false } } } }], 'segments are timed by their progress events');
    const { req, res, log } = request({ headers: { Range: 'bytes=100-109' } });
    assert.equal(r.loader.load(req, res), true);
    assert.equal(r.jobs.length, 1);
    assert.equal(r.jobs[0].url, SEGMENT);
    assert.deepEqual(r.jobs[0].o.range, { start: 100, end: 109 });
    r.jobs[0].o.onProgress({ loaded: 4, total: 10, firstAt: 1, at: 1 });
    assert.deepEqual(log, [ASKED, ['progress', 4, 10, true, 4]], 'each piece is told when it arrives: dash.js reads its clock then');
    r.jobs[0].o.onProgress({ loaded: 10, total: 10, firstAt: 1, at: 2 });
    assert.equal(res.status, 0, 'no status before the end');
    const whole = Uint8Array.from([9, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    r.jobs[0].resolve({ data: whole.subarray(2), head: { status: 206, statusText: 'Partial Content', headers: [['Content-Range', 'bytes 100-109/500'], ['x-a', '1'], ['X-A', '2']] }, startAt: 0, firstAt: 1, endAt: 2, rest: null });
    await tick();
    assert.deepEqual(log, [ASKED, ['progress', 4, 10, true, 4], ['progress', 10, 10, true, 6], ['loadend']]);
    assert.equal(res.status, 206);
    assert.equal(res.statusText, 'Partial Content');
    assert.equal(res.url, SEGMENT);
    assert.deepEqual(res.headers, { 'content-range': 'bytes 100-109/500', 'x-a': '1, 2' });
    assert.ok(res.data instanceof ArrayBuffer);
    assert.deepEqual([...new Uint8Array(res.data)], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(r.loads.length, 0, 'dash.js\'s own loader was not asked');
    assert.equal(r.direct.length, 0);
  });

  it('a body of unknown length gives progress without a total', async () => {
    const r = rig();
    const { req, res, log } = request({ type: 'InitializationSegment' });
    r.loader.load(req, res);
    assert.equal(r.jobs[0].o.range, null, 'no Range: the whole file');
    r.jobs[0].o.onProgress({ loaded: 3, total: null, firstAt: 1, at: 1 });
    assert.deepEqual(log, [ASKED, ['progress', 3, 0, false, 3]]);
  });

  it('a segment the fleet does not start goes to dash.js\'s own loader and counts as direct', async () => {
    const r = rig();
    const { req, res, log } = request({ headers: { Range: 'bytes=0-3' } });
    r.loader.load(req, res);
    r.jobs[0].resolve({ direct: 'ERR_NO_PROXIES: none' });
    await tick();
    assert.equal(r.loads.length, 1);
    assert.equal(r.loads[0].req, req);
    assert.equal(r.loads[0].res, res);
    assert.deepEqual(log, [ASKED], 'only the ask reported before dash.js\'s loader ends');
    const body = new Uint8Array([1, 2, 3, 4]).buffer;
    r.finish(206, body);
    assert.deepEqual(log, [ASKED, ['loadend']], 'dash.js hears the end once');
    assert.deepEqual(r.direct, [[SEGMENT, 4, 'ERR_NO_PROXIES: none', body]]);
    assert.equal(r.jobs.length, 1, 'the fleet was asked once');
  });

  it('a direct fetch that fails is not counted', async () => {
    const r = rig();
    const { req, res, log } = request();
    r.loader.load(req, res);
    r.jobs[0].resolve({ direct: 'ERR_FALLBACK: x' });
    await tick();
    r.finish(404, 'no');
    assert.deepEqual(log, [ASKED, ['loadend']]);
    assert.deepEqual(r.direct, []);
  });

  it('dash.js aborting the request aborts the fleet download: one abort, no loadend', async () => {
    const r = rig();
    const { req, res, log } = request();
    r.loader.load(req, res);
    const signal = r.jobs[0].o.signal;
    r.jobs[0].o.onProgress({ loaded: 4, total: 10, firstAt: 1, at: 1 });
    req.customData.abort(); // HTTPLoader.abort()
    assert.equal(signal.aborted, true);
    assert.deepEqual(log, [ASKED, ['progress', 4, 10, true, 4], ['abort']]);
    r.jobs[0].o.onProgress({ loaded: 10, total: 10, firstAt: 1, at: 2 });
    r.jobs[0].reject(signal.reason);
    await tick();
    assert.deepEqual(log, [ASKED, ['progress', 4, 10, true, 4], ['abort']], 'nothing after the abort');
    assert.equal(r.aborts(), 0, 'dash.js\'s own loader had nothing to abort');
  });

  it('the loader\'s abort(request) (HTTPLoader\'s progress timeout) and reset abort fleet downloads', async () => {
    const r = rig();
    const a = request();
    const b = request();
    r.loader.load(a.req, a.res);
    r.loader.load(b.req, b.res);
    r.loader.abort(a.req);
    assert.equal(r.jobs[0].o.signal.aborted, true);
    assert.equal(r.jobs[1].o.signal.aborted, false, 'only the one named');
    assert.deepEqual(a.log, [ASKED, ['abort']]);
    r.loader.reset();
    assert.equal(r.jobs[1].o.signal.aborted, true);
    assert.deepEqual(b.log, [ASKED, ['abort']]);
    assert.equal(r.resets(), 1, 'dash.js\'s own loader was reset too');
    const c = request();
    r.loader.load(c.req, c.res);
    r.loader.abort();
    assert.equal(r.jobs[2].o.signal.aborted, true, 'abort() with no request: all');
    assert.deepEqual(c.log, [ASKED, ['abort']]);
    assert.equal(r.aborts(), 1, 'and dash.js\'s own loader\'s');
  });

  it('a fleet failure after it started is a network error to dash.js: loadend with no status', async () => {
    const r = rig();
    const { req, res, log } = request();
    r.loader.load(req, res);
    r.jobs[0].reject(new Error('ERR_DIRECT_FAILED: origin gone'));
    await tick();
    assert.deepEqual(log, [ASKED, ['loadend']]);
    assert.equal(res.status, 0);
    assert.equal(res.data, null);
    assert.equal(r.loads.length, 0);
  });

  it('the request timeout ends a fleet download as XMLHttpRequest.timeout does', async () => {
    const r = rig();
    const { req, res, log } = request({ timeout: 5 });
    r.loader.load(req, res);
    r.jobs[0].o.onProgress({ loaded: 2, total: 10, firstAt: 1, at: 1 });
    await new Promise((ok) => setTimeout(ok, 30));
    assert.equal(r.jobs[0].o.signal.aborted, true);
    assert.deepEqual(log, [ASKED, ['progress', 2, 10, true, 2], ['timeout', 2], ['loadend']]);
    assert.equal(res.status, 0);
  });

  it('a finished request stays finished: no timeout, no abort after its loadend', async () => {
    const r = rig();
    const { req, res, log } = request({ timeout: 5 });
    r.loader.load(req, res);
    r.jobs[0].resolve({ data: new Uint8Array(1), head: { status: 200, statusText: 'OK', headers: [] }, startAt: 0, firstAt: 0, endAt: 0, rest: null });
    await tick();
    req.customData.abort();
    r.loader.abort(req);
    await new Promise((ok) => setTimeout(ok, 30));
    assert.deepEqual(log, [ASKED, ['loadend']]);
    assert.equal(res.status, 200);
  });

  it('an MPD goes to dash.js\'s own loader and the fleet reads it', async () => {
    const r = rig();
    const text = '<MPD></MPD>';
    for (const data of [text, new TextEncoder().encode(text).buffer]) {
      const { req, res, log } = request({ type: 'MPD', url: MPD, responseType: '' });
      r.loader.load(req, res);
      r.finish(200, data);
      assert.deepEqual(log, [['loadend']]);
    }
    assert.equal(r.jobs.length, 0);
    assert.deepEqual(r.learnt, [['dash', MPD, text], ['dash', MPD, text]]);
    assert.deepEqual(r.direct, [], 'an MPD is not a segment');
  });

  it('requests the fleet does not serve go straight to dash.js\'s own loader', () => {
    const r = rig();
    const cases = [
      request({ type: 'IndexSegment', headers: { Range: 'bytes=0-99' } }),
      request({ headers: { Range: 'bytes=100-' } }),
      request({ headers: { Authorization: 'Bearer x' } }),
      request({ credentials: 'include' }),
      request({ method: 'HEAD' }),
    ];
    for (const c of cases) r.loader.load(c.req, c.res);
    assert.equal(r.jobs.length, 0);
    assert.equal(r.loads.length, cases.length);
    r.finish(200, new ArrayBuffer(1));
    assert.deepEqual(r.direct, [], 'not counted: the fleet was not asked');
  });

  it('fleetRange reads the Range header HTTPLoader sets', () => {
    assert.deepEqual(fleetRange(request({ headers: { Range: 'bytes=5-9' } }).req), { start: 5, end: 9 });
    assert.deepEqual(fleetRange(request({ headers: { range: 'bytes=0-0', 'X-Empty': '' } }).req), { start: 0, end: 0 });
    assert.equal(fleetRange(request().req), null);
    assert.equal(fleetRange(request({ headers: { Range: 'bytes=9-5' } }).req), undefined);
    assert.equal(fleetRange(request({ headers: { Range: 'bytes=0-1,4-5' } }).req), undefined);
  });
});
