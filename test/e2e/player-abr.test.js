// The player plugins tell each player's bandwidth estimator the truth (Chromium). A ladder of
// three video renditions (250, 800, 2400 kbit/s), real players from npm, the site's media bodies
// paced per path, each a link of its own (the browser's direct requests, the proxies' origin
// fetches); testkit's abr-play.js says what each check plays and asserts:
//   - the direct path alone (1200 kbit/s) cannot carry the top rendition: without the plugin the
//     player never plays it (this shows the test can fail); with the plugin and the fleet unpaced
//     (far more than 3x the direct path), the player climbs to the top rendition no later than it
//     does without the plugin on an unpaced direct path;
//   - with the fleet slow (its origin fetches share a link of 1200 kbit/s, the direct path as
//     slow), the player does not overshoot: no more stalls than without the plugin on the direct
//     path alone, and at most half of its segments of the top rendition.
// test/e2e/firefox-abr.test.js runs the same checks in Firefox.
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { abrStreams } from '@mutp/testkit/e2e/helpers/abr-streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { ABR_CASES } from '@mutp/testkit/e2e/players/abr-play';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';

describe('player plugins e2e: ABR sees the truth (Chromium)', function () {
  this.timeout(900_000);
  let mediaDir, site, fleet, chrome;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'ffmpeg'] });
    mediaDir = await abrStreams();
    site = await startPlayerSite({ mediaDir, plugins: true });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    chrome = await launchChromium(null);
  });

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
  });

  for (const k of ABR_CASES) {
    it(k.title, () => k.run(chrome.browser, site, { mediaDir, origoUrl: fleet.origoUrl }));
  }
});
