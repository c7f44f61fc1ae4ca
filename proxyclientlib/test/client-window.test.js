// The MUTP window of a client download comes from the proxies it was given, as Origo lists them
// (with their upload rates): callers that pass their own proxy list (the testbed, the CLI) get
// the same window as proxies from Origo.
import assert from 'node:assert/strict';
import { createClient } from '../index.js';
import { UNADVERTISED_UPLOAD_RATE_BPS } from '../src/mutp/window-choice.js';
import { windowFromPaths } from '@mutp/protocol';
import { LOOPBACK_RTC, memoryObjects, sha256, startTestProxy, testBytes } from '@mutp/testkit/mutp-harness';

const URL_A = 'http://origin.test/w';
const body = testBytes(100_000, 9);
const RATE = 4 * 896 * 1024; // bytes/s: a window above the paper's 240

describe('ProxyClientLib: the window of a download on given proxies', function () {
  this.timeout(60_000);

  it('comes from the given proxies\' upload rates; a proxy without one counts as UNADVERTISED_UPLOAD_RATE_BPS', async () => {
    const proxy = await startTestProxy({ id: 'p0', objects: memoryObjects(new Map([[URL_A, body]])) });
    const client = createClient({ origo: null, rtcConfig: LOOPBACK_RTC, logger: { warn() {} } });
    try {
      const withRate = await client.download(URL_A, { mode: 'coded', proxies: [{ ...proxy.ref, uploadRateBps: RATE }], log: false });
      assert.equal(sha256(withRate.data), sha256(body));
      const expected = windowFromPaths({ mode: 'coded', ratesBps: [RATE] });
      assert.ok(expected > 240);
      assert.equal(withRate.stats.params.window, expected);
      const bad = await client.download(URL_A, { mode: 'coded', proxies: [{ ...proxy.ref, uploadRateBps: -5 }], log: false });
      assert.equal(bad.stats.params.window, windowFromPaths({ mode: 'coded', ratesBps: [UNADVERTISED_UPLOAD_RATE_BPS] }), 'a rate that is no rate is not used');
      assert.notEqual(bad.stats.params.window, expected);
    } finally {
      client.close();
      proxy.kill();
    }
  });
});
