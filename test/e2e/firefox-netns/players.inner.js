// The player plugins (@mutp/players) in headless Debian Firefox ESR with no extension. Runs
// INSIDE the network namespace test/e2e/firefox-players.test.js creates (not .test.js, so the
// root mocha globs never pick it up): Firefox offers no loopback ICE candidate, so the proxies
// bind WebRTC to the namespace's own address (MUTP_E2E_NETNS_ADDR), which Firefox offers.
// 1. hls.js, Shaka and dash.js on the player site, each in every mode: byte-exact, ≥ 95% of
//    segments through the fleet, some bytes in the mode asked for (for the MUTP modes: the page's
//    own WebRTC data channels carried them). The fleet runs in its worker, the page's data
//    channels handed to it.
// 2. Pages closed one after another with records not sent yet: Origo gets them (each close sends them).
//    A fleet made to start at the page's first frame: the segments before it direct, the rest through it.
// 3. Each player with the whole fleet dying mid-play: it plays on from its own loader, byte-exact.
// 4. `npm start`'s demo page (/player/) played to its end, start.js run in here with --rtc-bind.
import assert from 'node:assert/strict';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { PLUGIN_PLAYERS, HLS_PROGRESSIVE, MIN_FLEET_SHARE, playAndCheckPlugin, playThroughFleetDeath, playFleetStartedAtFirstFrame, startDemoSystem, playDemoPage, checkRecordsSentOnClose } from '@mutp/testkit/e2e/players/plugin-play';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchFirefox } from '@mutp/testkit/e2e/helpers/browsers';

const BIND_ADDR = process.env.MUTP_E2E_NETNS_ADDR;
const PLAY_SECONDS = 6; // three 2 s segments per track
const AFTER_DEATH_SECONDS = 6; // played on after the fleet died: three more segments per track, from the players' own loaders
const DURING_AFTER_SEGMENTS = 3; // the fleet dies once the player has this many segments
const MODES = ['coded', 'uncoded', 'parallel-http', 'range-http'];
const DEMO_MODES = ['coded', 'range-http'];

describe('player plugins e2e: headless Firefox ESR without the extension, in a network namespace', function () {
  let ff;

  before(async () => {
    if (!BIND_ADDR) throw new Error('run through test/e2e/firefox-players.test.js: it creates the namespace and sets MUTP_E2E_NETNS_ADDR');
    ff = await launchFirefox(null, null);
    const ua = await ff.browser.userAgent();
    console.log(`      ${ua}`);
    // the player site tells the browser's own requests from the proxies' by this (startPlayerSite's fromBrowser)
    assert.match(ua, /Mozilla.*Firefox\//, 'Firefox\'s user agent');
  });

  after(async () => {
    await ff?.close();
  });

  describe('hls.js, Shaka and dash.js on the player site', () => {
    let mediaDir, site, fleet;

    before(async () => {
      mediaDir = await testStreams();
      site = await startPlayerSite({ mediaDir, plugins: true });
      fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host], rtcBindAddress: BIND_ADDR });
    });

    after(async () => {
      await fleet?.close();
      await site?.close();
    });

    for (const c of PLUGIN_PLAYERS) {
      for (const mode of MODES) {
        it(`${c.player} in ${mode}: plays ≥ ${PLAY_SECONDS} s, ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet, some in ${mode}, byte-exact, an Origo record each`, async () => {
          const st = await playAndCheckPlugin(ff.browser, site, { ...c, mode, seconds: PLAY_SECONDS, mediaDir, fleet, runsIn: 'worker' });
          // the site saw Firefox's own requests (the manifests, which the player fetches itself) as the browser's
          assert.ok(st.hits.some((h) => h.fromBrowser && /\.(m3u8|mpd)$/.test(h.path)), `no request the site took for the browser's: ${JSON.stringify(st.hits.slice(0, 5))}`);
          console.log(`      ${c.player} ${mode}: by mode ${Object.entries(st.fleetStats.fleetBytes).map(([m, b]) => `${m} ${(b / 1024).toFixed(1)} KiB`).join(', ')}`);
        });
      }
    }

    it('hls.js in its progressive mode (progressive: true), Coded MUTP: the same checks', async () => {
      await playAndCheckPlugin(ff.browser, site, { ...HLS_PROGRESSIVE, mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet, runsIn: 'worker' });
    });

    it('pages closed one after another while their fleets hold records for the next batch: Origo gets them all, with no later page load (hls.js, Coded MUTP)', async () => {
      await checkRecordsSentOnClose(ff.browser, site, { ...PLUGIN_PLAYERS[0], mode: 'coded', fleet });
    });

    it('a fleet that starts at the page\'s first frame (startOn: first-frame), Shaka in Coded MUTP: the segments before it direct (ERR_FLEET_STARTING), the rest through the fleet, byte-exact', async () => {
      await playFleetStartedAtFirstFrame(ff.browser, site, { ...PLUGIN_PLAYERS[1], mode: 'coded', seconds: PLAY_SECONDS, mediaDir, fleet });
    });

    for (const c of PLUGIN_PLAYERS) {
      it(`${c.player}: the whole fleet (Origo and every proxy) dies mid-play; the player plays on from its own loader, byte-exact`, async () => {
        await playThroughFleetDeath(ff.browser, site, {
          player: c.player, src: c.src, mediaDir, seconds: PLAY_SECONDS, afterSeconds: AFTER_DEATH_SECONDS, duringAfter: DURING_AFTER_SEGMENTS, rtcBindAddress: BIND_ADDR,
        });
      });
    }
  });

  describe('npm start: the demo page', () => {
    let demo;

    before(async () => {
      demo = await startDemoSystem({ args: ['--rtc-bind', BIND_ADDR] });
      assert.match(demo.stdout, new RegExp(`WebRTC bind: +${BIND_ADDR.replaceAll('.', '\\.')} `), 'start.js binds the proxies\' WebRTC to the namespace address');
    });

    after(async () => {
      await demo?.close();
    });

    for (const mode of DEMO_MODES) {
      it(`${mode}: plays to the end, byte-exact, ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet, counters shown`, async () => {
        const st = await playDemoPage(ff.browser, demo.playerUrl, mode);
        assert.ok((st.stats.fleetBytes[mode] ?? 0) > 0, `no segment ran in ${mode}: ${JSON.stringify(st.stats.fleetBytes)}`);
      });
    }
  });
});
