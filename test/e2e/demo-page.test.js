// `npm start`'s demo page, as a newcomer opens it: the URL it prints, in headless Chromium with no
// extension. hls.js plays the demo stream to its end through the local fleet with the player
// plugin; every segment is byte-exact with the committed stream, ≥ 95% came through the fleet,
// and the page's counters say so.
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';
import { MIN_FLEET_SHARE, startDemoSystem, playDemoPage } from '@mutp/testkit/e2e/players/plugin-play';

describe('npm start: the demo page plays through the fleet with the player plugin (Chromium)', function () {
  this.timeout(240_000);
  let demo, chrome;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium'] });
    demo = await startDemoSystem();
    chrome = await launchChromium(null);
  });

  after(async () => {
    await chrome?.close();
    await demo?.close();
  });

  for (const mode of ['coded', 'range-http']) {
    it(`${mode}: plays to the end, byte-exact, ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet, counters shown`, async () => {
      await playDemoPage(chrome.browser, demo.playerUrl, mode);
    });
  }
});
