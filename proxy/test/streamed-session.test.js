// Streamed MUTP (docs/protocol.md "Streamed meta"): a real proxy serves a coded download of an
// object it does not hold yet while the origin still sends it, to a client that asks for a
// streamed meta; a client that does not ask gets the whole meta first, as before.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { decodeMessage, encodeMessage, normalizeParams } from '@mutp/protocol';
import { startProxy } from '../index.js';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { downloadMutp } from '@mutp/proxyclientlib/mutp';
import { paceBody, startOrigin } from '@mutp/testkit/local-origin';
import { LOOPBACK_RTC, testBytes } from '@mutp/testkit/mutp-harness';

const BODY = testBytes(1_200_000, 5);
/** The slow origin sends its body in pieces of this size (bytes) ... */
const PIECE_BYTES = 64 * 1024;
/** ... one every this many ms: ~360 ms for the whole body. */
const PIECE_EVERY_MS = 20;
/** The slow /uneven copies come this many times slower still: the client has every packet from the fast one long before. */
const UNEVEN_SLOW_FACTOR = 3;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describe('streamed MUTP: a proxy sends while the origin still sends', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** per path: when (performance.now) the origin wrote its last byte */
  /** @type {Map<string, number>} */
  const sentAll = new Map();
  /** @type {Set<string>} */
  const unevenAsked = new Set();

  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = String(req.url);
      if (path.startsWith('/chunked')) {
        res.writeHead(200, { 'content-type': 'video/mp4' }); // no length: chunked, so not streamed
        return res.end(BODY);
      }
      // the first proxy to ask for an /uneven object gets it at once, the others at the slow pace
      if (path.startsWith('/uneven') && !unevenAsked.has(path)) {
        unevenAsked.add(path);
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BODY.length });
        return res.end(BODY);
      }
      paceBody(res, BODY, {
        pieceBytes: PIECE_BYTES, everyMs: path.startsWith('/uneven') ? UNEVEN_SLOW_FACTOR * PIECE_EVERY_MS : PIECE_EVERY_MS,
        diesAt: path.startsWith('/dies') ? BODY.length / 2 : Infinity, // the origin's connection breaks midway
        onEnd: () => sentAll.set(path, performance.now()),
      });
    });
    proxies = await Promise.all([0, 1, 2].map((i) => startProxy({ id: `s${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${origin.port}`], logger: /** @type {any} */ (quiet) })));
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await origin.close();
  });

  const ps = () => proxies.map((p) => ({ id: p.id, url: p.url }));

  it('coded, 3 proxies: verified bytes reach the caller before the origin has sent the whole object; byte-exact', async () => {
    const url = `${origin.url}/a.mp4`;
    let firstBytesAt = 0;
    const { data } = await downloadMutp({
      url, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet,
      onProgress: (p) => { if (!firstBytesAt && p.netBytes > 0) firstBytesAt = performance.now(); },
    });
    assert.ok(Buffer.from(data).equals(BODY), 'byte-exact');
    const end = /** @type {number} */ (sentAll.get('/a.mp4'));
    assert.ok(firstBytesAt > 0 && firstBytesAt < end - 100, `first bytes ${Math.round(end - firstBytesAt)} ms before the origin's last`);
    // the object is cached whole now: the next download of it is served as before
    const again = await downloadMutp({ url, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet });
    assert.ok(Buffer.from(again.data).equals(BODY));
  });

  it('one proxy\'s origin far faster: the client has every packet from it, and the others still send their checksums as their bytes come (the vote needs them)', async () => {
    const { data, perProxy } = /** @type {any} */ (await downloadMutp({
      url: `${origin.url}/uneven.mp4`, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet,
    }));
    assert.ok(Buffer.from(data).equals(BODY), 'byte-exact');
    assert.deepEqual(perProxy.map((/** @type {any} */ p) => p.error), [null, null, null]);
  });

  it('an origin that says no length is not streamed; the download is byte-exact', async () => {
    const { data } = await downloadMutp({ url: `${origin.url}/chunked.mp4`, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet });
    assert.ok(Buffer.from(data).equals(BODY));
  });

  it('an origin that breaks midway: every proxy answers its code, the download fails and hands the caller only verified bytes', async () => {
    /** @type {Uint8Array[]} */
    const delivered = [];
    await assert.rejects(
      downloadMutp({
        url: `${origin.url}/dies.mp4`, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet,
        onProgress: (p) => {
          for (const c of p.chunks) {
            delivered.push(Buffer.from(c.bytes));
            assert.ok(Buffer.from(c.bytes).equals(BODY.subarray(c.offset, c.offset + c.bytes.length)), 'a delivered chunk differs');
          }
        },
      }),
      (/** @type {any} */ err) => {
        assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
        assert.match(err.message, /ERR_ORIGIN_UNREACHABLE/);
        return true;
      },
    );
    assert.ok(delivered.length > 0, 'the first half was delivered while it came');
  });

  /**
   * The messages a proxy sends for a request of the slow object at `path`, up to its first meta.
   * @param {boolean} streamed  whether the request takes a streamed meta @param {string} path
   * @param {boolean} [timing]  whether it takes a timing message
   * @returns {Promise<any[]>}
   */
  async function upToMeta(streamed, path, timing = false) {
    const link = await connectPeer({ url: proxies[0].url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      /** @type {any[]} */
      const got = [];
      const meta = new Promise((resolve) => link.channel.addEventListener('message', (ev) => {
        const r = decodeMessage(new Uint8Array(/** @type {ArrayBuffer} */ (ev.data)));
        if (!r.ok) return;
        got.push(r.msg);
        if (r.msg.type === 'meta') resolve(undefined);
      }));
      link.channel.send(/** @type {any} */ (encodeMessage({
        type: 'request', downloadId: 9, url: `${origin.url}${path}`, method: 'GET', range: null, mode: 'coded', sourceIndex: 0, sourceCount: 1,
        seed: 1, params: normalizeParams({}, 'coded'), streamed, timing,
      })));
      await meta;
      return got;
    } finally {
      link.close();
    }
  }

  /** The first meta a proxy sends for a request of the slow object at `path`. @param {boolean} streamed @param {string} path */
  const firstMeta = async (streamed, path) => (await upToMeta(streamed, path)).find((m) => m.type === 'meta');

  it('a client that does not ask for a streamed meta (one that predates it) gets the whole meta first', async () => {
    const m = await firstMeta(false, '/old-client.mp4');
    assert.equal(m.streamed, false);
    assert.equal(m.totalSize, BODY.length);
    assert.equal(m.checksums?.first, 0, 'its checksum table comes with it');
  });

  it('a client that asks gets the layout alone first, before the origin has sent the object', async () => {
    const m = await firstMeta(true, '/new-client.mp4');
    assert.equal(m.streamed, true);
    assert.equal(m.totalSize, BODY.length);
    assert.equal(m.checksums, null);
    assert.equal(sentAll.has('/new-client.mp4'), false, 'the origin is still sending');
  });

  it('a client that asks hears, before the meta, what the request waited for at the proxy: the origin, then the preparation', async () => {
    const whole = await upToMeta(false, '/timing-whole.mp4', true);
    assert.deepEqual(whole.map((m) => m.type).slice(0, 2), ['timing', 'meta']);
    // the whole object first: the slow origin's ~360 ms
    assert.ok(whole[0].originMs >= 250 && whole[0].originMs < 5000, `origin ${whole[0].originMs} ms`);
    assert.ok(whole[0].prepareMs >= 0 && whole[0].prepareMs < 1000, `prepare ${whole[0].prepareMs} ms`);
    const cached = await upToMeta(false, '/timing-whole.mp4', true);
    assert.ok(cached[0].type === 'timing' && cached[0].originMs < 100, `from the cache: origin ${cached[0].originMs} ms`);
    const streamed = await upToMeta(true, '/timing-streamed.mp4', true);
    assert.equal(streamed[0].type, 'timing');
    assert.ok(streamed[0].originMs < 250, `streamed: the origin's head only, ${streamed[0].originMs} ms`);
    const unasked = await upToMeta(false, '/timing-unasked.mp4');
    assert.equal(unasked.filter((m) => m.type === 'timing').length, 0, 'a client that did not ask (one that predates it) gets none');
  });

  it("a download's request steps: its first meta, what that proxy waited for, and the vote", async () => {
    const { requestSteps: s, firstPacketMs } = /** @type {any} */ (await downloadMutp({
      url: `${origin.url}/steps.mp4`, mode: 'coded', proxies: ps(), RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: quiet,
    }));
    assert.ok(s.originMs >= 0 && s.originMs < 250, `streamed: the origin's head, ${s.originMs} ms`);
    assert.ok(s.answerMs >= s.originMs + s.prepareMs, `the first meta at ${s.answerMs} ms came after the proxy's wait`);
    assert.ok(s.decidedMs >= s.answerMs && s.decidedMs <= firstPacketMs, `the vote at ${s.decidedMs} ms, first packet at ${firstPacketMs} ms`);
  });

  it('a request re-sent after its download ended (its last slices lost) gets the meta again', async () => {
    const url = `${origin.url}/ended.mp4`;
    await upToMeta(false, '/ended.mp4'); // cached now
    const link = await connectPeer({ url: proxies[0].url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      let metas = 0;
      link.channel.addEventListener('message', (ev) => {
        const r = decodeMessage(new Uint8Array(/** @type {ArrayBuffer} */ (ev.data)));
        if (r.ok && r.msg.type === 'meta') metas++;
      });
      const request = encodeMessage({
        type: 'request', downloadId: 11, url, method: 'GET', range: null, mode: 'coded', sourceIndex: 0, sourceCount: 1, seed: 1, params: normalizeParams({}, 'coded'),
      });
      const until = async (/** @type {() => boolean} */ ok) => { for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10)); };
      link.channel.send(/** @type {any} */ (request));
      await until(() => metas > 0);
      link.channel.send(/** @type {any} */ (encodeMessage({ type: 'done', downloadId: 11 })));
      await new Promise((r) => setTimeout(r, 100));
      const before = metas;
      link.channel.send(/** @type {any} */ (request));
      await until(() => metas > before);
      assert.ok(metas > before, 'the meta came again');
    } finally {
      link.close();
    }
  });
});
