// Streamed MUTP (docs/protocol.md "Streamed meta"): a real proxy serves a coded download of an
// object it does not hold yet while the origin still sends it, to a client that asks for a
// streamed meta; a client that does not ask gets the whole meta first, as before.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { decodeMessage, encodeMessage, normalizeParams } from '@mutp/protocol';
import { startProxy } from '../index.js';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { downloadMutp } from '@mutp/proxyclientlib/mutp';
import { startOrigin } from '@mutp/testkit/local-origin';
import { LOOPBACK_RTC, testBytes } from '@mutp/testkit/mutp-harness';

const BODY = testBytes(1_200_000, 5);
/** The slow origin sends its body in pieces of this size (bytes) ... */
const PIECE_BYTES = 64 * 1024;
/** ... one every this many ms: ~360 ms for the whole body. */
const PIECE_EVERY_MS = 20;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

describe('streamed MUTP: a proxy sends while the origin still sends', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** per path: when (performance.now) the origin wrote its last byte */
  /** @type {Map<string, number>} */
  const sentAll = new Map();

  before(async () => {
    origin = await startOrigin((req, res) => {
      const path = String(req.url);
      if (path.startsWith('/chunked')) {
        res.writeHead(200, { 'content-type': 'video/mp4' }); // no length: chunked, so not streamed
        return res.end(BODY);
      }
      const dies = path.startsWith('/dies');
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BODY.length });
      let at = 0;
      const next = () => {
        if (dies && at >= BODY.length / 2) return res.destroy(); // the origin's connection breaks midway
        res.write(BODY.subarray(at, at + PIECE_BYTES));
        at += PIECE_BYTES;
        if (at < BODY.length) setTimeout(next, PIECE_EVERY_MS);
        else {
          sentAll.set(path, performance.now());
          res.end();
        }
      };
      next();
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
   * The first meta a proxy sends for a request of the slow object at `path`.
   * @param {boolean} streamed  whether the request takes a streamed meta @param {string} path
   */
  async function firstMeta(streamed, path) {
    const link = await connectPeer({ url: proxies[0].url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC });
    try {
      const meta = new Promise((resolve) => link.channel.addEventListener('message', (ev) => {
        const r = decodeMessage(new Uint8Array(/** @type {ArrayBuffer} */ (ev.data)));
        if (r.ok && r.msg.type === 'meta') resolve(r.msg);
      }));
      link.channel.send(/** @type {any} */ (encodeMessage({
        type: 'request', downloadId: 9, url: `${origin.url}${path}`, method: 'GET', range: null, mode: 'coded', sourceIndex: 0, sourceCount: 1,
        seed: 1, params: normalizeParams({}, 'coded'), streamed,
      })));
      return /** @type {any} */ (await meta);
    } finally {
      link.close();
    }
  }

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
});
