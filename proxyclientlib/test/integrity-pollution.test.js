// Integrity over real WebRTC on loopback (issue 8 §3): a proxy in a test-only fault mode
// corrupts 1% of its packets or lies in its meta; the download completes byte-exact from the
// honest proxies and the record names the culprit with ERR_INTEGRITY.
import assert from 'node:assert/strict';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { downloadMutp } from '../src/mutp/index.js';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes } from './mutp-harness.js';

const URL = 'http://origin.test/three';
const objects = new Map([[URL, testBytes(3_000_000, 8)]]);
const common = { RTCPeerConnection, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } };

describe('MUTP integrity: faulty proxies (loopback WebRTC)', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startTestProxy>>[]} */
  let proxies = [];
  afterEach(() => proxies.forEach((p) => p.kill()));

  /** @param {(string | undefined)[]} faults one entry per proxy */
  async function fleet(faults) {
    proxies = await Promise.all(faults.map((faultMode, i) =>
      startTestProxy({ id: `p${i}`, objects: memoryObjects(objects), config: faultMode ? { faultMode } : {} })));
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

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`${mode}: a proxy corrupting 1% of its packets is detected, excluded and named; the download is byte-exact`, async () => {
      const ps = await fleet([undefined, 'corrupt-coded-1pct', undefined, undefined]);
      const res = await downloadMutp({ ...common, url: URL, mode, proxies: ps.map((p) => p.ref) });
      assertCulpritNamed(res, 1);
      assert.ok(res.stats.serverFetchMs !== null && res.stats.serverFetchMs >= 0, 'serverFetchMs comes from meta');
    });
  }

  it('coded: a proxy lying in its meta checksums (1 of 3) is outvoted and named', async () => {
    const ps = await fleet([undefined, undefined, 'lying-meta']);
    const res = await downloadMutp({ ...common, url: URL, mode: 'coded', proxies: ps.map((p) => p.ref) });
    assertCulpritNamed(res, 2);
  });

  it('uncoded: two proxies, one lying in its meta: the data settles the tie and names the liar', async () => {
    const ps = await fleet(['lying-meta', undefined]);
    const res = await downloadMutp({ ...common, url: URL, mode: 'uncoded', proxies: ps.map((p) => p.ref) });
    assertCulpritNamed(res, 0);
  });

  it('the test-only env var MUTP_TEST_ONLY_FAULTS picks the faulty proxy by id', async () => {
    process.env.MUTP_TEST_ONLY_FAULTS = 'p0=corrupt-coded-1pct';
    try {
      const ps = await fleet([undefined, undefined, undefined]);
      const res = await downloadMutp({ ...common, url: URL, mode: 'coded', proxies: ps.map((p) => p.ref) });
      assertCulpritNamed(res, 0);
    } finally {
      delete process.env.MUTP_TEST_ONLY_FAULTS;
    }
  });
});
