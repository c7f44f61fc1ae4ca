// MUTP failure handling over real WebRTC on loopback: proxies killed or silent mid-download,
// refused URLs, malformed packets, and abort.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import * as protocol from '@mutp/protocol';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes, waitFor } from '@mutp/testkit/mutp-harness';

const MB = 1_000_000;
const URL5 = 'http://origin.test/five';
const BLOCKED = 'http://127.0.0.1/';
const objects = new Map([[URL5, testBytes(5 * MB, 5)]]);
const ALL_FAILED_WITHIN_MS = 10_000; // all proxies gone → a clear error within 10 s
const common = { RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } };

/** A protocol whose senders go silent (send nothing, close nothing) after `after` packets. */
function freezingProtocol(after) {
  return {
    ...protocol,
    async createSender(/** @type {any} */ o) {
      const s = await protocol.createSender(o);
      let sent = 0;
      const next = s.nextDatagram.bind(s);
      s.nextDatagram = (/** @type {number} */ now) => (sent >= after ? null : (sent++, next(now)));
      return s;
    },
  };
}

/** A protocol whose senders replace every 7th packet on the wire with junk bytes. */
function corruptingProtocol() {
  let k = 0;
  return {
    ...protocol,
    async createSender(/** @type {any} */ o) {
      const s = await protocol.createSender(o);
      const next = s.nextDatagram.bind(s);
      s.nextDatagram = (/** @type {number} */ now) => {
        const bytes = next(now);
        if (bytes === null || ++k % 7 !== 0) return bytes;
        const junk = testBytes(bytes.length, k);
        junk[0] = k % 3 === 0 ? 1 : 99; // sometimes a valid version byte, so the type check is hit too
        return junk;
      };
      return s;
    },
  };
}

describe('MUTP over WebRTC (loopback): failures', function () {
  this.timeout(30_000);
  /** @type {Awaited<ReturnType<typeof startTestProxy>>[]} */
  let proxies = [];
  afterEach(() => proxies.forEach((p) => p.kill()));

  async function fleet(n, opts = {}) {
    proxies = await Promise.all(Array.from({ length: n }, (_, i) =>
      startTestProxy({ id: `p${i}`, objects: memoryObjects(objects, { [BLOCKED]: 'ERR_SSRF_BLOCKED' }), ...opts })));
    return proxies;
  }

  for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
    it(`${mode}: a proxy killed mid-download does not fail it`, async () => {
      const ps = await fleet(4);
      let killed = false;
      const { data, stats } = await downloadMutp({
        ...common, url: URL5, mode, proxies: ps.map((p) => p.ref),
        onProgress: (p) => {
          if (!killed && p.netBytes > MB) { killed = true; ps[1].kill(); }
        },
      });
      assert.ok(killed);
      assert.equal(sha256(data), sha256(objects.get(URL5)));
      assert.equal(stats.perProxy[1].error?.code, 'ERR_PROXY_GONE');
      assert.equal(stats.error, null);
    });

    it(`${mode}: all proxies killed → ERR_ALL_PROXIES_FAILED within 10 s`, async () => {
      const ps = await fleet(2);
      let killedAt = 0;
      const p = downloadMutp({
        ...common, url: URL5, mode, proxies: ps.map((x) => x.ref),
        onProgress: (pr) => {
          if (!killedAt && pr.netBytes > MB) { killedAt = performance.now(); ps.forEach((x) => x.kill()); }
        },
      });
      await assert.rejects(p, (/** @type {any} */ err) => {
        assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
        assert.ok(killedAt > 0);
        assert.ok(performance.now() - killedAt < ALL_FAILED_WITHIN_MS, 'the error came within 10 s');
        assert.equal(err.stats.error.code, 'ERR_ALL_PROXIES_FAILED');
        assert.equal(err.perProxy.length, 2);
        return true;
      });
    });
  }

  it('all proxies silent (no close) → ERR_ALL_PROXIES_FAILED within 10 s', async () => {
    const ps = await fleet(2, { protocol: freezingProtocol(200) });
    const t = performance.now();
    await assert.rejects(downloadMutp({ ...common, url: URL5, mode: 'uncoded', proxies: ps.map((x) => x.ref) }), (/** @type {any} */ err) => {
      assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
      assert.deepEqual(err.perProxy.map((/** @type {any} */ x) => x.error.code), ['ERR_PROXY_SILENT', 'ERR_PROXY_SILENT']);
      assert.ok(performance.now() - t < ALL_FAILED_WITHIN_MS);
      return true;
    });
  });

  it('a refused URL: the proxy error code arrives over the data channel', async () => {
    const ps = await fleet(2);
    await assert.rejects(downloadMutp({ ...common, url: BLOCKED, mode: 'coded', proxies: ps.map((x) => x.ref) }), (/** @type {any} */ err) => {
      assert.equal(err.code, 'ERR_ALL_PROXIES_FAILED');
      assert.deepEqual(err.perProxy.map((/** @type {any} */ x) => x.error.code), ['ERR_SSRF_BLOCKED', 'ERR_SSRF_BLOCKED']);
      assert.match(err.message, /ERR_SSRF_BLOCKED/);
      return true;
    });
    await waitFor(() => ps.every((p) => p.records.length === 1));
    for (const p of ps) assert.equal(p.records[0].error.code, 'ERR_SSRF_BLOCKED');
  });

  it('malformed packets from a proxy are ignored; the download completes byte-exact', async () => {
    const ps = await fleet(2, { protocol: corruptingProtocol() });
    const warnings = [];
    const { data } = await downloadMutp({ ...common, logger: { warn: (m) => warnings.push(m) }, url: URL5, mode: 'coded', proxies: ps.map((x) => x.ref) });
    assert.equal(sha256(data), sha256(objects.get(URL5)));
    assert.ok(warnings.some((w) => /malformed/.test(w)), 'the bad packets were logged');
  });

  it('an unreachable proxy among live ones is dropped with a code', async () => {
    const ps = await fleet(2);
    const { data, stats } = await downloadMutp({
      ...common, url: URL5, mode: 'uncoded', proxies: [...ps.map((x) => x.ref), { id: 'dead', url: 'http://127.0.0.1:9' }],
    });
    assert.equal(sha256(data), sha256(objects.get(URL5)));
    assert.equal(stats.perProxy[2].error.code, 'ERR_RTC_SIGNAL_FAILED');
  });

  it('honours an AbortSignal mid-download and closes the sessions', async () => {
    const ps = await fleet(2);
    const ctrl = new AbortController();
    const p = downloadMutp({
      ...common, url: URL5, mode: 'coded', proxies: ps.map((x) => x.ref), signal: ctrl.signal,
      onProgress: (pr) => { if (pr.netBytes > MB) ctrl.abort(); },
    });
    await assert.rejects(p, (/** @type {any} */ err) => err.code === 'ERR_ABORTED');
    await waitFor(() => ps.every((x) => x.stats.activeSessions === 0 && x.rtc.peerCount === 0));
  });

  it('refuses bad options with codes', async () => {
    await assert.rejects(downloadMutp({ ...common, url: URL5, mode: /** @type {any} */ ('parallel-http'), proxies: [{ id: 'a', url: 'http://127.0.0.1:9' }] }),
      (/** @type {any} */ e) => e.code === 'ERR_BAD_OPTION');
    await assert.rejects(downloadMutp({ ...common, url: URL5, mode: 'coded', proxies: [] }), (/** @type {any} */ e) => e.code === 'ERR_BAD_OPTION');
    await assert.rejects(downloadMutp({ ...common, url: URL5, mode: 'coded', params: { generationSize: 999 }, proxies: [{ id: 'a', url: 'http://127.0.0.1:9' }] }),
      (/** @type {any} */ e) => e.code === 'ERR_BAD_PARAMS' || e.code === 'ERR_PARAMS_DO_NOT_FIT');
  });
});
