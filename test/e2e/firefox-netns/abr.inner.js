// The player plugins' ABR checks (testkit's abr-play.js, as test/e2e/player-abr.test.js runs them
// in Chromium) in headless Debian Firefox ESR with no extension. Runs INSIDE the network namespace
// test/e2e/firefox-abr.test.js creates (not .test.js, so the root mocha globs never pick it up):
// Firefox offers no loopback ICE candidate, so the proxies bind WebRTC to the namespace's own
// address (MUTP_E2E_NETNS_ADDR), which Firefox offers.
import assert from 'node:assert/strict';
import { abrStreams } from '@mutp/testkit/e2e/helpers/abr-streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { ABR_CASES } from '@mutp/testkit/e2e/players/abr-play';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchFirefox } from '@mutp/testkit/e2e/helpers/browsers';

const BIND_ADDR = process.env.MUTP_E2E_NETNS_ADDR;

describe('player plugins e2e: ABR sees the truth (Firefox ESR, in a network namespace)', function () {
  let mediaDir, site, fleet, ff;

  before(async () => {
    if (!BIND_ADDR) throw new Error('run through test/e2e/firefox-abr.test.js: it creates the namespace and sets MUTP_E2E_NETNS_ADDR');
    mediaDir = await abrStreams();
    site = await startPlayerSite({ mediaDir, plugins: true });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host], rtcBindAddress: BIND_ADDR });
    ff = await launchFirefox(null, null);
    assert.match(await ff.browser.userAgent(), /Mozilla.*Firefox\//, 'Firefox\'s user agent');
  });

  after(async () => {
    await ff?.close();
    await fleet?.close();
    await site?.close();
  });

  for (const k of ABR_CASES) {
    it(k.title, () => k.run(ff.browser, site, { mediaDir, origoUrl: fleet.origoUrl, rtcBindAddress: BIND_ADDR }));
  }
});
