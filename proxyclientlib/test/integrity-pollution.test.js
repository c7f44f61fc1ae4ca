// Integrity over real WebRTC on loopback: a proxy with the test-only fault protocol
// corrupts 1% of its packets or lies in its meta; the download completes byte-exact from the
// honest proxies and the record names the culprit with ERR_INTEGRITY.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import * as protocol from '@mutp/protocol';
import { faultyProtocol } from '@mutp/proxy/test-faults';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes } from '@mutp/testkit/mutp-harness';

const URL = 'http://origin.test/three';
const objects = new Map([[URL, testBytes(3_000_000, 8)]]);
const common = { RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } };
const CORRUPT_ATTEMPTS = 3; // downloads before a corrupting proxy must have been named (see assertEventuallyNamed)

describe('MUTP integrity: faulty proxies (loopback WebRTC)', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startTestProxy>>[]} */
  let proxies = [];
  afterEach(() => proxies.forEach((p) => p.kill()));

  /** @param {(string | undefined)[]} faults one entry per proxy */
  async function fleet(faults) {
    proxies = await Promise.all(faults.map((faultMode, i) =>
      startTestProxy({ id: `p${i}`, objects: memoryObjects(objects), protocol: faultMode ? faultyProtocol(protocol, faultMode) : undefined })));
    return proxies;
  }

  /** @param {any} res @param {number} culprit */
  function assertCulpritNamed(res, culprit) {
    assert.equal(sha256(res.data), sha256(objects.get(URL)), 'byte-exact');
    assert.equal(res.stats.error, null);
    const per = res.stats.perProxy;
    const why = JSON.stringify(per.map((/** @type {any} */ p) => p.error));
    assert.equal(per[culprit].error?.code, 'ERR_INTEGRITY', `proxy ${culprit} named: ${why}`);
    per.forEach((/** @type {any} */ p, /** @type {number} */ i) => { if (i !== culprit) assert.equal(p.error, null, `honest proxy ${i}: ${why}`); });
  }

  /**
   * A corrupting proxy damages 1 packet in 100, a lying one 1 checksum in 3. When the machine is
   * busy, all of its damaged packets can arrive after their generation (or packet) was already
   * complete, or the honest proxies finish before its meta is weighed: unused, the lies harm
   * nothing and there is nothing to detect. So download up to CORRUPT_ATTEMPTS times: every
   * download must be byte-exact with no honest proxy blamed, and one must name the culprit.
   * @param {'coded'|'uncoded'} mode @param {{ref: any}[]} ps @param {number} culprit
   * @param {{ checksumAsync?: (bytes: Uint8Array) => Promise<Uint8Array> }} [more]
   */
  async function assertEventuallyNamed(mode, ps, culprit, more = {}) {
    for (let attempt = 1; ; attempt++) {
      const res = await downloadMutp({ ...common, ...more, url: URL, mode, proxies: ps.map((p) => p.ref) });
      assert.equal(sha256(res.data), sha256(objects.get(URL)), 'byte-exact');
      assert.equal(res.stats.error, null);
      const per = res.stats.perProxy;
      const why = JSON.stringify(per.map((/** @type {any} */ p) => p.error));
      per.forEach((/** @type {any} */ p, /** @type {number} */ i) => { if (i !== culprit) assert.equal(p.error, null, `honest proxy ${i}: ${why}`); });
      if (per[culprit].error?.code === 'ERR_INTEGRITY' || attempt === CORRUPT_ATTEMPTS) {
        assertCulpritNamed(res, culprit);
        return res;
      }
    }
  }

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: a proxy corrupting 1% of its packets is detected, excluded and named; the download is byte-exact`, async () => {
      const ps = await fleet([undefined, 'corrupt-coded-1pct', undefined, undefined]);
      const res = await assertEventuallyNamed(mode, ps, 1);
      assert.ok(res.stats.serverFetchMs !== null && res.stats.serverFetchMs >= 0, 'serverFetchMs comes from meta');
    });
  }

  it('coded: a proxy lying in its meta checksums (1 of 3) is outvoted and named', async () => {
    const ps = await fleet([undefined, undefined, 'lying-meta']);
    await assertEventuallyNamed('coded', ps, 2);
  });

  /** Coded generations' checksums off the thread, as a browser's WebCrypto takes them: each back 0-3 ms later, out of order. */
  function slowChecksums() {
    const c = { taken: 0, checksumAsync: async (/** @type {Uint8Array} */ b) => {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      c.taken++;
      return protocol.checksumOf(b);
    } };
    return c;
  }

  for (const [fault, culprit] of /** @type {const} */ ([['corrupt-coded-1pct', 1], ['lying-meta', 2]])) {
    it(`coded, checksums taken off the thread: a proxy with fault ${fault} is named; the download is byte-exact`, async () => {
      const ps = await fleet([undefined, undefined, undefined, undefined].map((_, i) => (i === culprit ? fault : undefined)));
      const slow = slowChecksums();
      await assertEventuallyNamed('coded', ps, culprit, { checksumAsync: slow.checksumAsync });
      assert.ok(slow.taken > 0, 'the proxies said they keep held generations, and the checksums went off the thread');
    });
  }

  it('uncoded: two proxies, one lying in its meta: the data settles the tie and names the liar; the download then rests on one (verified: false)', async () => {
    const ps = await fleet(['lying-meta', undefined]);
    const res = await assertEventuallyNamed('uncoded', ps, 0);
    if (res.stats.perProxy[0].error) assert.equal(res.stats.verified, false);
  });

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: the record says verified: true when two or more proxies stood behind every checksum, false from one proxy`, async () => {
      const ps = await fleet([undefined, undefined]);
      const two = await downloadMutp({ ...common, url: URL, mode, proxies: ps.map((p) => p.ref) });
      assert.equal(sha256(two.data), sha256(objects.get(URL)));
      assert.equal(/** @type {any} */ (two.stats).verified, true);
      const one = await downloadMutp({ ...common, url: URL, mode, proxies: [ps[0].ref] });
      assert.equal(/** @type {any} */ (one.stats).verified, false);
    });
  }

  // A proxy whose copy of the object is another one of the same size, its meta and packets
  // consistent with it (a liar that hashes what it serves, or an origin that changed between fetches).
  /** @param {(number | false)[]} copies one entry per proxy: the seed of another copy it serves, or false (the object) */
  async function fleetWithCopies(copies) {
    proxies = await Promise.all(copies.map((seed, i) => startTestProxy({
      id: `p${i}`, objects: memoryObjects(seed === false ? objects : new Map([[URL, testBytes(3_000_000, seed)]])),
    })));
    return proxies;
  }

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: two proxies, one serving another object consistently: nobody is believed alone, ERR_INTEGRITY_UNRESOLVED, nobody named`, async () => {
      const ps = await fleetWithCopies([9, false]);
      await assert.rejects(downloadMutp({ ...common, url: URL, mode, proxies: ps.map((p) => p.ref) }), (/** @type {any} */ err) => {
        assert.equal(err.code, 'ERR_INTEGRITY_UNRESOLVED', err.message);
        const named = (err.stats?.perProxy ?? []).filter((/** @type {any} */ p) => p.error?.code === 'ERR_INTEGRITY');
        assert.deepEqual(named, [], 'nobody named');
        return true;
      });
    });

    it(`${mode}: four proxies, each with its own copy (an origin that changed between their fetches): ERR_INTEGRITY_UNRESOLVED, nobody named`, async () => {
      const ps = await fleetWithCopies([9, 10, 11, false]);
      await assert.rejects(downloadMutp({ ...common, url: URL, mode, proxies: ps.map((p) => p.ref) }), (/** @type {any} */ err) => {
        assert.equal(err.code, 'ERR_INTEGRITY_UNRESOLVED', err.message);
        assert.deepEqual((err.stats?.perProxy ?? []).filter((/** @type {any} */ p) => p.error?.code === 'ERR_INTEGRITY'), [], 'nobody named');
        return true;
      });
    });

    it(`${mode}: three proxies, one serving another object consistently: outvoted and named; byte-exact`, async () => {
      const ps = await fleetWithCopies([9, false, false]);
      const res = await downloadMutp({ ...common, url: URL, mode, proxies: ps.map((p) => p.ref) });
      assertCulpritNamed(res, 0);
      assert.equal(/** @type {any} */ (res.stats).verified, true, 'two proxies stood behind every checksum');
    });
  }
});
