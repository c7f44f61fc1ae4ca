// The player plugins (@mutp/players) with real players from npm in headless Chromium, no
// extension: the page loads the browser bundle, makes a fleet (in its worker, the page's data
// channels handed to it; in the page with worker: false, or under a CSP that forbids workers) and
// hands it to hls.js (fLoader, pLoader), Shaka (scheme plugin) or dash.js (XHRLoader). Every
// segment the player got is byte-exact with the origin's head, ≥ 95% of them came through the
// fleet in the mode asked for, and Origo has a record for each, also of a page closed before its
// records' batch went. A fleet made to start at the page's first frame sends the segments before it
// direct and the rest through itself. When the whole fleet dies mid-play, the player plays on from its own loader,
// still byte-exact.
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { PLUGIN_PLAYERS as PLAYERS, HLS_PROGRESSIVE, MIN_FLEET_SHARE, playAndCheckPlugin, playThroughFleetDeath, playFleetStartedAtFirstFrame, checkRecordsSentOnClose } from '@mutp/testkit/e2e/players/plugin-play';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';

const PLAY_SECONDS = 6; // three 2 s segments per track
const AFTER_DEATH_SECONDS = 6; // played on after the fleet died: three more segments per track, from the players' own loaders
const DURING_AFTER_SEGMENTS = 3; // the fleet dies once the player has this many segments: the players buffer ahead fast on loopback
const MODES = ['coded', 'uncoded', 'parallel-http', 'range-http'];

describe('player plugins e2e: hls.js, Shaka and dash.js through the fleet without the extension (Chromium)', function () {
  this.timeout(600_000);
  let mediaDir, site, fleet, chrome;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'ffmpeg'] });
    mediaDir = await testStreams();
    site = await startPlayerSite({ mediaDir, plugins: true });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    chrome = await launchChromium(null);
  });

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
  });

  for (const c of PLAYERS) {
    for (const mode of MODES) {
      it(`${c.player} in ${mode}: ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet in that mode, byte-exact, origin head, an Origo record each`, async () => {
        await playAndCheckPlugin(chrome.browser, site, { ...c, mode, seconds: PLAY_SECONDS, mediaDir, fleet, runsIn: 'worker' });
      });
    }
  }

  it('hls.js in its progressive mode (progressive: true), Coded MUTP: the same checks', async () => {
    await playAndCheckPlugin(chrome.browser, site, { ...HLS_PROGRESSIVE, mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet, runsIn: 'worker' });
  });

  it('the fleet in the page (createFleet({worker: false})), Coded MUTP with Shaka: the same checks', async () => {
    await playAndCheckPlugin(chrome.browser, site, { ...PLAYERS[1], mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet, query: { worker: '0' }, label: 'shaka, fleet in the page', runsIn: 'page' });
  });

  it('a page whose Content-Security-Policy forbids workers: the fleet runs in the page, hls.js in Coded MUTP passes the same checks', async () => {
    await playAndCheckPlugin(chrome.browser, site, { ...PLAYERS[0], mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet, query: { csp: 'no-workers' }, label: 'hls, CSP without workers', runsIn: 'page' });
  });

  it('a fleet that starts at the page\'s first frame (startOn: first-frame), Shaka in Coded MUTP: the segments before it direct (ERR_FLEET_STARTING), the rest through the fleet, byte-exact', async () => {
    await playFleetStartedAtFirstFrame(chrome.browser, site, { ...PLAYERS[1], mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet });
  });

  it('pages closed one after another while their fleets hold records for the next batch: Origo gets them all, with no later page load (hls.js, Coded MUTP)', async () => {
    await checkRecordsSentOnClose(chrome.browser, site, { ...PLAYERS[0], mode: 'coded', fleet });
  });

  for (const c of PLAYERS) {
    it(`${c.player}: the whole fleet (Origo and every proxy) dies mid-play; the player plays on from its own loader, byte-exact`, async () => {
      await playThroughFleetDeath(chrome.browser, site, {
        player: c.player, src: c.src, mediaDir, seconds: PLAY_SECONDS, afterSeconds: AFTER_DEATH_SECONDS, duringAfter: DURING_AFTER_SEGMENTS,
      });
    });
  }
});
