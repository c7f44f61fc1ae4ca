// The proxy's MUTP session over a real data channel: bad peer data is logged and ignored,
// refused URLs answer with their code, and the real startProxy serves MUTP end to end.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { encodeMessage, decodeMessage, normalizeParams, createSender, createPathCache, META_COPIES } from '@mutp/protocol';
import { startProxy } from '../index.js';
import { MAX_INBOUND_MESSAGE_BYTES, SCTP_MAX_MESSAGE_BYTES } from '../src/rtc/limits.js';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { downloadMutp } from '@mutp/proxyclientlib/mutp';
import { LOOPBACK_RTC, memoryObjects, startTestProxy, testBytes, waitFor } from '@mutp/testkit/mutp-harness';

const URL1 = 'http://origin.test/one';
const BLOCKED = 'http://169.254.169.254/';
const sha256 = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

/** @param {RTCDataChannel} channel @returns {Promise<any>} the next decodable message */
function nextMessage(channel, type, count = 1) {
  let seen = 0;
  return new Promise((resolve) => {
    const on = (/** @type {MessageEvent} */ ev) => {
      const r = decodeMessage(new Uint8Array(ev.data));
      if (r.ok && r.msg.type === type && ++seen === count) {
        channel.removeEventListener('message', on);
        resolve(r.msg);
      }
    };
    channel.addEventListener('message', on);
  });
}

const request = (/** @type {object} */ o) => encodeMessage({
  type: 'request', downloadId: 7, url: URL1, method: 'GET', range: null, mode: 'uncoded', sourceIndex: 0, sourceCount: 1,
  seed: 1, params: normalizeParams({}, 'uncoded'), ...o,
});

describe('rtc MUTP session (real WebRTC on loopback)', function () {
  this.timeout(30_000);
  let proxy;
  let link;
  beforeEach(async () => {
    proxy = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map([[URL1, testBytes(50_000, 9)]]), { [BLOCKED]: 'ERR_SSRF_BLOCKED' }) });
    link = await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
  });
  afterEach(() => {
    link?.close();
    proxy?.kill();
  });

  it('logs and ignores malformed messages, then still serves a valid request', async () => {
    const junk = [
      'a string',
      new Uint8Array([1]), // shorter than the header
      new Uint8Array([99, 1, 0, 0, 0, 7]), // unknown version
      new Uint8Array([1, 42, 0, 0, 0, 7]), // unknown type
      request({}).subarray(0, 20), // truncated request
      new Uint8Array(MAX_INBOUND_MESSAGE_BYTES + 1), // oversize, within SCTP's limit
      encodeMessage({ type: 'done', downloadId: 12345 }), // done for nothing
      encodeMessage({ type: 'error', downloadId: 7, code: 'ERR_X', message: 'clients do not send errors' }),
    ];
    for (const j of junk) link.channel.send(j);
    // The proxy's SDP advertises SCTP_MAX_MESSAGE_BYTES: the client's own stack refuses more.
    assert.throws(() => link.channel.send(new Uint8Array(SCTP_MAX_MESSAGE_BYTES + 1)), /size exceeds limit/);
    const meta = nextMessage(link.channel, 'meta');
    link.channel.send(request({}));
    const m = await meta;
    assert.equal(m.totalSize, 50_000);
    assert.equal(m.downloadId, 7);
    await waitFor(() => proxy.warnings.length >= 6);
    assert.ok(proxy.warnings.some((w) => /malformed/.test(w)));
    assert.ok(proxy.warnings.some((w) => /non-binary/.test(w)));
    assert.ok(proxy.warnings.some((w) => new RegExp(`${MAX_INBOUND_MESSAGE_BYTES + 1}-byte`).test(w)));
    assert.equal(proxy.stats.activeSessions, 1, 'the valid request is being served');
  });

  it('the record\'s firstSendMs counts the origin fetch before the first datagram', async () => {
    const FETCH_MS = 80;
    const objects = memoryObjects(new Map([[URL1, testBytes(60_000, 4)]]));
    const slow = { async get(/** @type {string} */ url) { await new Promise((r) => setTimeout(r, FETCH_MS)); return objects.get(url); } };
    const px = await startTestProxy({ id: 'p-first-send', objects: slow });
    try {
      const { data } = await downloadMutp({ url: URL1, mode: 'uncoded', proxies: [px.ref], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
      assert.equal(sha256(data), sha256(testBytes(60_000, 4)));
      await waitFor(() => px.records.length === 1);
      const r = px.records[0];
      assert.ok(r.firstSendMs >= FETCH_MS - 1 && r.firstSendMs <= r.durationMs, `firstSendMs ${r.firstSendMs}, durationMs ${r.durationMs}`);
    } finally {
      px.kill();
    }
  });

  it('a client\'s new connection starts from the path its earlier connection measured', async () => {
    const cache = createPathCache();
    const got = /** @type {(object | null)[]} */ ([]);
    const stored = /** @type {object[]} */ ([]);
    const watched = {
      get: (/** @type {string} */ k, /** @type {number} */ now) => { const p = cache.get(k, now); got.push(p); return p; },
      set: (/** @type {string} */ k, /** @type {any} */ p, /** @type {number} */ now) => { cache.set(k, p, now); if (cache.get(k, now)) stored.push(cache.get(k, now)); },
      get size() { return cache.size; },
    };
    const px = await startTestProxy({ id: 'p-path', objects: memoryObjects(new Map([[URL1, testBytes(400_000, 3)]])), pathCache: watched });
    const download = async (/** @type {number} */ i) => {
      // a new connection each time (no pool), as a one-off download or a new page load makes
      const { data } = await downloadMutp({ url: URL1, mode: 'coded', proxies: [px.ref], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
      assert.equal(sha256(data), sha256(testBytes(400_000, 3)));
      await waitFor(() => px.records.length === i + 1);
    };
    try {
      // A download whose echoes all came within one rate sample (a busy client reads them in one
      // go) measures nothing and stores nothing: take downloads until one has stored an estimate.
      let i = 0;
      for (; i < 5 && stored.length === 0; i++) await download(i);
      assert.ok(stored.length > 0, 'some download measured its path');
      const earlier = stored[stored.length - 1];
      await download(i);
      assert.equal(got[0], null, 'the first connection knows nothing');
      assert.equal(got.length, i + 1);
      const last = /** @type {any} */ (got[i]);
      assert.ok(last && last.rate > 0 && last.minRttMs > 0, 'the new connection starts from an estimate');
      assert.deepEqual(last, earlier, 'the one its earlier connection stored');
    } finally {
      px.kill();
    }
  });

  it('never paces faster than the upload rate it was configured with', async () => {
    // loopback carries this in ~0.1 s (measured: ~0.1 s without the ceiling); at 150 KB/s it takes ≥ 1 s
    const BYTES = 150_000;
    const UPLOAD_BPS = 150_000;
    const px = await startTestProxy({ id: 'p-uplink', objects: memoryObjects(new Map([[URL1, testBytes(BYTES, 5)]])), config: { uploadRateBps: UPLOAD_BPS } });
    try {
      const t0 = performance.now();
      const { data } = await downloadMutp({ url: URL1, mode: 'coded', proxies: [px.ref], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
      const ms = performance.now() - t0;
      assert.equal(sha256(data), sha256(testBytes(BYTES, 5)));
      assert.ok(ms >= 0.8 * (BYTES / UPLOAD_BPS) * 1000, `${BYTES} B in ${Math.round(ms)} ms: faster than ${UPLOAD_BPS} B/s`);
    } finally {
      px.kill();
    }
  });

  it('passes on one next-object hint per download, and only for the download it serves', async () => {
    const hint = (/** @type {number} */ downloadId, /** @type {string} */ url) => encodeMessage({ type: 'hint', downloadId, url });
    link.channel.send(hint(5, 'http://origin.test/early')); // no download yet
    const meta = nextMessage(link.channel, 'meta', META_COPIES); // each of its copies
    link.channel.send(request({}));
    await meta;
    link.channel.send(hint(7, 'http://origin.test/next'));
    link.channel.send(hint(7, 'http://origin.test/again'));
    link.channel.send(hint(99, 'http://origin.test/other'));
    // a re-sent request is answered with the meta again: the hints before it were read by then
    const again = nextMessage(link.channel, 'meta');
    link.channel.send(request({}));
    await again;
    assert.deepEqual(proxy.hints, ['http://origin.test/next']);
    assert.equal(proxy.warnings.length, 0, 'a hint is no malformed message');
  });

  it('sends a client that asks for bundles its packets a few to a message, each a whole datagram; byte-exact end to end', async () => {
    /** @type {any[]} */
    const got = [];
    link.channel.addEventListener('message', (/** @type {MessageEvent} */ ev) => got.push(decodeMessage(new Uint8Array(ev.data)).msg));
    link.channel.send(request({ bundles: true }));
    await waitFor(() => got.filter((m) => m?.type === 'bundle').length >= 5);
    const bundles = got.filter((m) => m?.type === 'bundle');
    assert.ok(bundles.every((b) => b.parts.length >= 2 && b.parts.every((/** @type {Uint8Array} */ p) => decodeMessage(p).msg?.type === 'data')));
    const { data } = await downloadMutp({ url: URL1, mode: 'coded', bundles: true, proxies: [proxy.ref], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
    assert.equal(sha256(data), sha256(testBytes(50_000, 9)));
  });

  it('stops bundling for a client whose feedback says its packets are lost, and sends it one datagram per message', async () => {
    /** @type {any[]} */
    const got = [];
    link.channel.addEventListener('message', (/** @type {MessageEvent} */ ev) => got.push(decodeMessage(new Uint8Array(ev.data)).msg));
    link.channel.send(request({ bundles: true }));
    await waitFor(() => got.filter((m) => m?.type === 'bundle').length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 30)); // the object's first burst is out: the window holds the rest
    const seqOf = (/** @type {any} */ m) => (m.type === 'bundle' ? /** @type {any} */ (decodeMessage(m.parts.at(-1)).msg).seq : m.seq);
    const echo = Math.max(...got.filter((m) => m?.type === 'bundle' || m?.type === 'data').map(seqOf));
    // the client echoes the newest seq and has received nothing: every packet up to it was lost
    const before = got.length;
    link.channel.send(encodeMessage({ type: 'feedback', downloadId: 7, mode: 'uncoded', seq: 1, echo: [echo], base: 0, bits: 0, bitmap: new Uint8Array(0) }));
    const packets = () => got.slice(before).filter((m) => m?.type === 'data' || m?.type === 'bundle');
    await waitFor(() => packets().length >= 6);
    assert.ok(packets().every((m) => m.type === 'data'), 'one datagram per message once loss was reported');
  });

  it('a refused URL answers with its error code and records it', async () => {
    const err = nextMessage(link.channel, 'error');
    link.channel.send(request({ url: BLOCKED, downloadId: 9 }));
    const e = await err;
    assert.equal(e.code, 'ERR_SSRF_BLOCKED');
    assert.equal(e.downloadId, 9);
    await waitFor(() => proxy.records.length === 1);
    assert.equal(proxy.records[0].error.code, 'ERR_SSRF_BLOCKED');
    assert.equal(proxy.records[0].downloadId, '9');
    assert.equal(proxy.stats.activeSessions, 0);
  });

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: the data datagrams on the wire are the bytes encodeMessage(nextPacket()) gives`, async () => {
      const params = normalizeParams({}, mode);
      const twin = await createSender({ mode, data: testBytes(50_000, 9), params, sourceIndex: 0, sourceCount: 1, seed: 1, downloadId: 7 });
      /** @type {Uint8Array[]} */
      const got = [];
      const enough = new Promise((resolve) => {
        link.channel.addEventListener('message', (/** @type {MessageEvent} */ ev) => {
          const b = new Uint8Array(ev.data);
          if (b[1] === 3 || b[1] === 4) got.push(b); // MSG.data, MSG.coded
          if (got.length === 8) resolve(undefined);
        });
      });
      link.channel.send(request({ mode, params }));
      await enough;
      // the first packets leave at once, long before minRtoMs could expire any: the twin, asked
      // at time 0, takes the same decisions
      got.forEach((b, k) => assert.deepEqual(b, encodeMessage(twin.nextPacket(0)), `datagram ${k + 1} differs`));
      twin.close();
    });
  }

  it('each download\'s meta carries the checksum table of the bytes it serves, also when the object was hashed before', async () => {
    const params = normalizeParams({}, 'coded');
    const body = testBytes(50_000, 9);
    const cases = [{ range: null, id: 21 }, { range: { start: 1000, end: 29_999 }, id: 22 }, { range: null, id: 23 }, { range: { start: 1000, end: 29_999 }, id: 24 }];
    for (const c of cases) {
      const data = c.range ? body.subarray(c.range.start, c.range.end + 1) : body;
      const twin = await createSender({ mode: 'coded', data, params, sourceIndex: 0, sourceCount: 1, seed: 1, downloadId: c.id });
      const meta = nextMessage(link.channel, 'meta', META_COPIES); // the last copy: the next download's come after it
      link.channel.send(request({ mode: 'coded', params, range: c.range, downloadId: c.id }));
      const m = await meta;
      assert.equal(m.totalSize, data.byteLength);
      assert.deepEqual(m.checksums.values, twin.metaMessages()[0].checksums.values, `download ${c.id}`);
      twin.close();
    }
  });

  it('bad request parameters answer with a code', async () => {
    const err = nextMessage(link.channel, 'error');
    link.channel.send(request({ range: { start: 10_000_000, end: 10_000_010 }, downloadId: 11 }));
    assert.equal((await err).code, 'ERR_RANGE_NOT_SATISFIABLE');
  });
});

describe('rtc through the real startProxy', function () {
  this.timeout(30_000);
  const body = testBytes(1_000_000, 4);
  let origin;
  let originUrl;
  let originPort;
  /** the Range header of each request for /big (null: none) */
  const bigAsked = [];
  before(async () => {
    origin = http.createServer((req, res) => {
      if (req.url === '/big') {
        // honours one closed Range, as CDNs do
        bigAsked.push(req.headers.range ?? null);
        const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        if (!m) return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': body.length }).end(body);
        const [start, end] = [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
        return res.writeHead(206, { 'content-type': 'video/mp4', 'content-range': `bytes ${start}-${end}/${body.length}` }).end(body.subarray(start, end + 1));
      }
      res.writeHead(200, { 'content-type': 'video/webm', 'content-length': body.length });
      res.end(body);
    });
    await new Promise((r) => origin.listen(0, '127.0.0.1', () => r(undefined)));
    originPort = /** @type {import('node:net').AddressInfo} */ (origin.address()).port;
    originUrl = `http://127.0.0.1:${originPort}/video.webm`;
  });
  after(() => origin.close());

  const quiet = { info() {}, warn() {}, error() {}, debug() {} };

  it('serves Coded MUTP byte-exact and writes a proxy record', async () => {
    const proxy = await startProxy({ id: 'real-0', allowPrivate: true, allowedHosts: [`127.0.0.1:${originPort}`], logger: /** @type {any} */ (quiet) });
    try {
      const { data } = await downloadMutp({ url: originUrl, mode: 'coded', proxies: [{ id: proxy.id, url: proxy.url }], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet });
      assert.equal(sha256(data), sha256(body));
      await waitFor(() => proxy.queue.size >= 1);
      assert.ok(proxy.stats.bytesSent >= body.length);
    } finally {
      await proxy.close();
    }
  });

  it('a byte range is fetched from the origin alone: a range of an object larger than the proxy\'s cap is served', async () => {
    const proxy = await startProxy({ id: 'real-2', allowPrivate: true, allowedHosts: [`127.0.0.1:${originPort}`], maxObjectBytes: 200_000, logger: /** @type {any} */ (quiet) });
    try {
      for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
        bigAsked.length = 0;
        const range = mode === 'coded' ? { start: 300_000, end: 449_999 } : { start: 10, end: 150_009 };
        const { data } = await downloadMutp({ url: `http://127.0.0.1:${originPort}/big`, mode, range, proxies: [{ id: proxy.id, url: proxy.url }], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet });
        assert.equal(sha256(data), sha256(body.subarray(range.start, range.end + 1)), mode);
        assert.deepEqual(bigAsked, [`bytes=${range.start}-${range.end}`], `${mode}: one origin request, for the range`);
      }
    } finally {
      await proxy.close();
    }
  });

  it('default config refuses a loopback origin: ERR_SSRF_BLOCKED over the data channel', async () => {
    const proxy = await startProxy({ id: 'real-1', logger: /** @type {any} */ (quiet) });
    try {
      await assert.rejects(downloadMutp({ url: 'http://127.0.0.1/', mode: 'uncoded', proxies: [{ id: proxy.id, url: proxy.url }], RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet }),
        (/** @type {any} */ err) => err.code === 'ERR_ALL_PROXIES_FAILED' && err.perProxy[0].error.code === 'ERR_SSRF_BLOCKED');
    } finally {
      await proxy.close();
    }
  });
});
