// Uncoded and Coded MUTP end to end over real WebRTC data channels on loopback.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes, waitFor } from '@mutp/testkit/mutp-harness';

const MB = 1_000_000;
const ORIGIN = 'http://origin.test';
const SIZES = [1, 1 * MB, 5 * MB];
const objects = new Map(SIZES.map((n) => [`${ORIGIN}/obj-${n}`, testBytes(n, n)]));
objects.set(`${ORIGIN}/empty`, new Uint8Array(0));

const common = { RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } };

describe('MUTP over WebRTC (loopback): byte-exact matrix', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startTestProxy>>[]} */
  let proxies = [];
  const seen = new Set(); // proxy records already matched to a test
  before(async () => {
    proxies = await Promise.all([0, 1, 2, 3].map((i) => startTestProxy({ id: `p${i}`, objects: memoryObjects(objects) })));
  });
  after(() => proxies.forEach((p) => p.kill()));

  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    for (const size of SIZES) {
      for (const n of [1, 2, 4]) {
        it(`${mode}: ${size} bytes from N=${n}`, async () => {
          const url = `${ORIGIN}/obj-${size}`;
          let progressBytes = 0;
          const got = new Uint8Array(size);
          const { data, stats } = await downloadMutp({
            ...common, url, mode, proxies: proxies.slice(0, n).map((p) => p.ref),
            onProgress: (p) => {
              for (const c of p.chunks) { got.set(c.bytes, c.offset); progressBytes += c.bytes.length; }
            },
          });
          assert.equal(sha256(data), sha256(objects.get(url)));
          assert.equal(progressBytes, size, 'onProgress streamed every byte once');
          assert.equal(sha256(got), sha256(objects.get(url)), 'the streamed chunks rebuild the object');
          assert.equal(stats.mode, mode);
          assert.equal(stats.n, n);
          assert.deepEqual(stats.proxyIds, proxies.slice(0, n).map((p) => p.id));
          assert.equal(stats.netBytes, size);
          assert.ok(stats.grossBytes >= size);
          assert.equal(stats.error, null);
          assert.ok(stats.goodputBps > 0 && stats.normalizedGoodput > 0 && stats.normalizedGoodput <= 1);
          assert.equal(stats.perProxy.length, n);
          assert.ok(stats.packets >= Math.ceil(size / 1100));
          assert.ok(Array.isArray(stats.packetLog) && stats.packetLog.length === stats.packets);
          // every proxy that served (a small object may finish before slow proxies connect) wrote one record
          const served = proxies.slice(0, n).filter((p, i) => stats.perProxy[i].packets > 0);
          assert.ok(served.length >= 1);
          await waitFor(() => served.every((p) => p.records.some((r) => r.url === url && r.n === n && r.mode === mode && !seen.has(r))));
          for (const p of served) {
            const rec = p.records.find((r) => r.url === url && r.n === n && r.mode === mode && !seen.has(r));
            seen.add(rec);
            assert.equal(rec.mode, mode);
            assert.equal(rec.n, n);
            assert.equal(rec.objectBytes, size);
            assert.equal(rec.url, url);
          }
          if (size === 5 * MB && n === 4) {
            console.log(`      ${mode} N=4 5 MB: ${(stats.goodputBps / MB).toFixed(1)} MB/s goodput, normalized ${stats.normalizedGoodput.toFixed(3)}`);
          }
        });
      }
    }
  }

  it('a range of the object, and an empty object', async () => {
    const url = `${ORIGIN}/obj-${MB}`;
    const range = { start: 1000, end: 250_999 };
    const { data } = await downloadMutp({ ...common, url, range, mode: 'coded', proxies: proxies.slice(0, 2).map((p) => p.ref) });
    assert.equal(sha256(data), sha256(objects.get(url).subarray(1000, 251_000)));
    const empty = await downloadMutp({ ...common, url: `${ORIGIN}/empty`, mode: 'uncoded', proxies: proxies.slice(0, 2).map((p) => p.ref) });
    assert.equal(empty.data.byteLength, 0);
  });

  it('proxies return to zero active sessions', async () => {
    await waitFor(() => proxies.every((p) => p.stats.activeSessions === 0));
    assert.ok(proxies.every((p) => p.stats.bytesSent > 0));
  });
});
