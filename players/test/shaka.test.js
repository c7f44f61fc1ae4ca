// Shaka Player through the fleet (registerFleetScheme): the http(s) scheme plugin fetches
// segments through the fleet and answers as Shaka's own fetch plugin does (byte-exact data,
// status, headers, unrounded timeMs, progress samples that add up to the body); manifests, open
// ranges and segments the fleet does not serve go to Shaka's own plugin; abort() stops the fleet
// download with Shaka's OPERATION_ABORTED. Shaka itself is faked: the namespace parts the plugin uses.
import assert from 'node:assert/strict';
import { registerFleetScheme } from '../src/shaka.js';
import { fakeFleet as makeFakeFleet, tick } from './fake-fleet.js';

const SEGMENT = 'https://origin.test/v/720p/seg-1.m4s';
const MPD = 'https://origin.test/v/a.mpd';
const RequestType = { MANIFEST: 0, SEGMENT: 1 };
const Code = { HTTP_ERROR: 1002, OPERATION_ABORTED: 7001 };


/** Its calls reject when aborted, as the real fleet's do. */
const fakeFleet = () => makeFakeFleet({ rejectOnAbort: true });

/**
 * The parts of the shaka namespace the plugin uses. Shaka's own fetch plugin answers each call
 * with `ownAnswer(uri)`; `own` holds its calls, `schemes` what was registered.
 * @param {(uri: string) => any} ownAnswer
 */
function fakeShaka(ownAnswer = () => { throw new Error('the own plugin was not expected'); }) {
  class AbortableOperation {
    /** @param {Promise<any>} promise @param {() => Promise<unknown>} onAbort */
    constructor(promise, onAbort) {
      this.promise = promise;
      this.onAbort = onAbort;
      this.aborts = 0;
    }

    abort() {
      this.aborts += 1;
      return this.onAbort();
    }

    /** @param {(v: any) => any} fn */
    chain(fn) {
      return new AbortableOperation(this.promise.then(fn), () => this.abort());
    }
  }
  class ShakaError extends Error {
    /** @param {number} severity @param {number} category @param {number} code @param {unknown[]} data */
    constructor(severity, category, code, ...data) {
      super(`Shaka Error ${code}`);
      this.severity = severity;
      this.category = category;
      this.code = code;
      this.data = data;
    }

    static Severity = { RECOVERABLE: 1, CRITICAL: 2 };
    static Category = { NETWORK: 1, PLAYER: 7 };
    static Code = Code;
  }
  /** @type {{uri: string, args: unknown[], op: AbortableOperation}[]} */
  const own = [];
  /** @type {Map<string, {plugin: any, priority: number, progressSupport: boolean}>} */
  const schemes = new Map();
  const ownPlugin = (/** @type {string} */ uri, /** @type {unknown[]} */ ...args) => {
    const op = new AbortableOperation(Promise.resolve(ownAnswer(uri)), () => Promise.resolve());
    own.push({ uri, args, op });
    return op;
  };
  const NetworkingEngine = {
    registerScheme: (/** @type {string} */ scheme, /** @type {any} */ plugin, /** @type {number} */ priority, /** @type {boolean} */ progressSupport) => {
      schemes.set(scheme, { plugin, priority, progressSupport });
    },
    RequestType,
    PluginPriority: { FALLBACK: 1, PREFERRED: 2, APPLICATION: 3 },
  };
  const shaka = {
    net: { NetworkingEngine, HttpFetchPlugin: { isSupported: () => true, parse: ownPlugin }, HttpXHRPlugin: { parse: ownPlugin } },
    util: { AbortableOperation, Error: ShakaError },
  };
  return { shaka, own, ownPlugin, schemes, ShakaError };
}

/** A request as Shaka's networking engine makes one. @param {Record<string, string>} [headers] */
const request = (headers = {}) => ({ uris: [SEGMENT], method: 'GET', headers, body: null, retryParameters: {} });

/** @param {number} n @param {number} from */
const bytes = (n, from) => Uint8Array.from({ length: n }, (_, i) => (from + i * 29) & 0xff);

/** Callbacks of a plugin call that keep what they got. */
function listeners() {
  /** @type {[number, number, number][]} */
  const progress = [];
  /** @type {unknown[]} */
  const heads = [];
  return {
    progress, heads,
    progressUpdated: (/** @type {number} */ ms, /** @type {number} */ b, /** @type {number} */ left) => { progress.push([ms, b, left]); },
    headersReceived: (/** @type {unknown} */ h) => { heads.push(h); },
  };
}

/**
 * The plugin registered with a fake fleet and a fake Shaka whose own plugin answers with `ownAnswer`, and listeners for its callbacks.
 * @param {((uri: string) => unknown)} [ownAnswer]
 */
function registered(ownAnswer) {
  const f = fakeFleet();
  const s = fakeShaka(ownAnswer);
  registerFleetScheme(s.shaka, f.fleet);
  return { f, s, plugin: s.schemes.get('https')?.plugin, l: listeners() };
}

describe('players: Shaka scheme plugin through the fleet', () => {
  const realNow = performance.now;
  afterEach(() => { performance.now = realNow; });

  it('registers for http and https; a segment with a Range is fetched through the fleet and answered byte-exact, with status, lowercase headers, unrounded timeMs and progress that adds up to the body', async () => {
    const f = fakeFleet();
    const s = fakeShaka();
    const restore = registerFleetScheme(s.shaka, f.fleet);
    assert.deepEqual([...s.schemes.keys()], ['http', 'https']);
    for (const { priority, progressSupport } of s.schemes.values()) assert.deepEqual([priority, progressSupport], [3, true]);
    const plugin = s.schemes.get('https')?.plugin;
    assert.equal(s.schemes.get('http')?.plugin, plugin);

    let clock = 1000.25; // performance.now, stepped by the test: the times below are exact
    performance.now = () => clock;
    const l = listeners();
    const op = plugin(SEGMENT, request({ Range: 'bytes=0-99' }), RequestType.SEGMENT, l.progressUpdated, l.headersReceived, { minBytesForProgressEvents: 0 });
    assert.equal(f.jobs.length, 1);
    const [job] = f.jobs;
    assert.equal(job.url, SEGMENT);
    assert.deepEqual(job.o.range, { start: 0, end: 99 });
    assert.equal(s.own.length, 0);

    job.o.onProgress({ loaded: 40, total: 100, firstAt: 1001, at: 1001 });
    job.o.onProgress({ loaded: 70, total: 100, firstAt: 1001, at: 1001.5 }); // within Shaka's sample interval
    assert.equal(l.heads.length, 1, 'the first bytes are Shaka\'s headers-received moment');
    const body = bytes(100, 9);
    clock = 1002.75;
    job.resolve({
      data: body, rest: null, startAt: 1000.25, firstAt: 1001, endAt: 1002.75,
      head: { status: 206, statusText: 'Partial Content', headers: [['content-type', 'video/mp4'], ['content-length', '100'], ['content-range', 'bytes 0-99/5000']] },
    });
    const res = await op.promise;
    assert.deepEqual(Buffer.from(res.data), Buffer.from(bytes(100, 9)));
    assert.equal(res.status, 206);
    assert.deepEqual(res.headers, { 'content-type': 'video/mp4', 'content-length': '100', 'content-range': 'bytes 0-99/5000' });
    assert.equal(res.uri, SEGMENT);
    assert.equal(typeof res.timeMs, 'number');
    assert.equal(res.timeMs, 2.5, 'timeMs from the ask to the last byte, not rounded');
    assert.equal(l.progress.reduce((sum, [, b]) => sum + b, 0), body.length, `progress ${JSON.stringify(l.progress)}`);
    assert.deepEqual(l.progress.at(-1), [1.75, 60, 0]);
    assert.equal(l.heads.length, 1);
    assert.deepEqual(f.direct, []);

    restore();
    for (const { plugin: p } of s.schemes.values()) assert.equal(p, s.ownPlugin, 'Shaka\'s own plugin is back');
  });

  it('a manifest goes to Shaka\'s own plugin, and the fleet reads it (an .mpd as DASH)', async () => {
    const text = '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static"></MPD>';
    const answer = { uri: MPD, originalUri: MPD, data: new TextEncoder().encode(text).buffer, headers: { 'content-type': 'application/octet-stream' }, status: 200 };
    const { f, s, plugin, l } = registered(() => answer);
    const config = {};
    const req = { ...request(), uris: [MPD] };
    const op = plugin(MPD, req, RequestType.MANIFEST, l.progressUpdated, l.headersReceived, config);
    const res = await op.promise;
    assert.equal(res, answer);
    assert.equal(s.own.length, 1);
    assert.deepEqual(s.own[0].args, [req, RequestType.MANIFEST, l.progressUpdated, l.headersReceived, config]);
    assert.equal(f.jobs.length, 0);
    assert.deepEqual(f.learnt, [['dash', MPD, text]]);
  });

  it('a segment the fleet did not serve goes to Shaka\'s own plugin, and its bytes are counted as direct with the reason', async () => {
    const data = bytes(300, 1).buffer;
    const answer = { uri: SEGMENT, originalUri: SEGMENT, data, headers: {}, status: 200 };
    const { f, s, plugin, l } = registered(() => answer);
    const req = request();
    const op = plugin(SEGMENT, req, RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {});
    assert.equal(f.jobs.length, 1);
    assert.equal(f.jobs[0].o.range, null);
    f.jobs[0].resolve({ direct: 'ERR_FLEET_SKIPPED: origo failed recently' });
    const res = await op.promise;
    assert.equal(res, answer);
    assert.equal(s.own.length, 1);
    assert.deepEqual(s.own[0].args, [req, RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {}]);
    assert.deepEqual(f.direct, [[SEGMENT, 300, 'ERR_FLEET_SKIPPED: origo failed recently', data]]);
  });

  it('abort() aborts the fleet download, and the operation fails with OPERATION_ABORTED', async () => {
    const { f, s, plugin, l } = registered();
    const op = plugin(SEGMENT, request({ range: 'bytes=0-99' }), RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {});
    const [job] = f.jobs;
    assert.deepEqual(job.o.range, { start: 0, end: 99 }, 'the Range header, in any case');
    assert.equal(job.o.signal.aborted, false);
    await op.abort();
    assert.equal(job.o.signal.aborted, true);
    await assert.rejects(op.promise, (/** @type {any} */ e) => e instanceof s.ShakaError && e.code === Code.OPERATION_ABORTED);
    assert.equal(s.own.length, 0);
  });

  it('abort() after the fleet handed the segment to Shaka\'s own plugin aborts that plugin\'s operation', async () => {
    /** @type {(v: unknown) => void} */
    let answer = () => {};
    const f = fakeFleet();
    const s = fakeShaka();
    s.shaka.net.HttpFetchPlugin.parse = (/** @type {string} */ uri, /** @type {unknown[]} */ ...args) => {
      const op = new s.shaka.util.AbortableOperation(new Promise((r) => { answer = r; }), () => Promise.resolve());
      s.own.push({ uri, args, op });
      return op;
    };
    registerFleetScheme(s.shaka, f.fleet);
    const plugin = s.schemes.get('https')?.plugin;
    const l = listeners();
    const op = plugin(SEGMENT, request(), RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {});
    f.jobs[0].resolve({ direct: 'ERR_NO_PROGRESS: nothing for 4000 ms' });
    await tick();
    assert.equal(s.own.length, 1);
    await op.abort();
    assert.equal(s.own[0].op.aborts, 1);
    answer({ uri: SEGMENT, data: new ArrayBuffer(0), headers: {}, status: 200 });
  });

  it('abort() while the fleet hands the segment back: Shaka\'s own plugin is not asked, the operation fails with OPERATION_ABORTED', async () => {
    const { f, s, plugin, l } = registered();
    const op = plugin(SEGMENT, request(), RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {});
    f.jobs[0].resolve({ direct: 'ERR_NO_PROGRESS: nothing for 4000 ms' });
    op.abort(); // before the fleet's answer is handled
    await assert.rejects(op.promise, (/** @type {any} */ e) => e instanceof s.ShakaError && e.code === Code.OPERATION_ABORTED);
    assert.equal(s.own.length, 0);
    assert.deepEqual(f.direct, []);
  });

  it('an open range (bytes=100-) goes to Shaka\'s own plugin, not to the fleet', async () => {
    const answer = { uri: SEGMENT, originalUri: SEGMENT, data: new ArrayBuffer(5), headers: {}, status: 206 };
    const { f, s, plugin, l } = registered(() => answer);
    const op = plugin(SEGMENT, request({ Range: 'bytes=100-' }), RequestType.SEGMENT, l.progressUpdated, l.headersReceived, {});
    assert.equal(await op.promise, answer);
    assert.equal(f.jobs.length, 0);
    assert.equal(s.own.length, 1);
    assert.deepEqual(f.direct, [], 'not a fleet fallback: nothing to count');
  });
});
