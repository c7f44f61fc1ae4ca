// The player plugins tell each player's bandwidth estimator the truth. A ladder of three video
// renditions (250, 800, 2400 kbit/s), real players from npm in headless Chromium, the site's
// media bodies paced per path, each a link of its own (testkit's player site: the browser's
// direct requests, the proxies' origin fetches):
//   - the direct path alone (paced to 1200 kbit/s) cannot carry the top rendition: without the
//     plugin the player never plays it (this shows the test can fail);
//   - with the plugin and the fleet unpaced (far more than 3x the direct path), the player climbs
//     to the top rendition no later than it does without the plugin on an unpaced direct path;
//   - with the fleet slow (its origin fetches share a link of 1200 kbit/s, the direct path as
//     slow), the player does not overshoot: no more stalls than without the plugin on the direct
//     path alone, and at most half of its segments of the top rendition.
import assert from 'node:assert/strict';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { abrStreams, renditionOf, LADDER } from '@mutp/testkit/e2e/helpers/abr-streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { wrongResponses } from '@mutp/testkit/e2e/players/check';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';

const PLAY_SECONDS = 16; // eight 2 s segments: room for the estimators to climb
const PLAY_TIMEOUT_MS = 90_000;
const KBIT = 1000 / 8; // bytes/s per kbit/s
const SLOW_PATH_KBPS = 1200; // carries the middle rendition (800), not the top one (2400)
const CLIMB_SLACK_MS = 2000; // one segment: the players' switch points are per segment
const MAX_TOP_SHARE_SLOW = 0.5; // of a slow fleet's segments; told the true first byte, hls.js played 13 of 20 at the top and stalled
const TOP = LADDER.length - 1;
const PLAYERS = [
  { player: 'hls', src: 'hls/master.m3u8' },
  { player: 'shaka', src: 'dash/stream.mpd' },
  { player: 'dash', src: 'dash/stream.mpd' },
];

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

  afterEach(() => site?.setRates({ browser: null, proxy: null }));

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
  });

  /**
   * One page load played PLAY_SECONDS: when the top rendition's first segment arrived (ms since
   * navigation, null: never), stalls, the renditions asked for in order.
   * @param {{player: string, src: string}} c @param {{mode: string, n: number, origo?: string} | null} plugin  origo: another fleet's
   */
  async function play(c, plugin) {
    const page = await chrome.browser.newPage();
    try {
      const q = new URLSearchParams({ player: c.player, src: `${site.url}/media/${c.src}`, ...(plugin ? { plugin: '1', origo: plugin.origo ?? fleet.origoUrl, mode: plugin.mode, n: String(plugin.n) } : {}) });
      await page.goto(`${site.url}/play.html?${q}`);
      await page.waitForFunction((t) => document.querySelector('video').currentTime >= t || /** @type {any} */ (window).__play.errors.length > 0,
        { timeout: PLAY_TIMEOUT_MS, polling: 250 }, PLAY_SECONDS);
      const st = await page.evaluate(() => ({ .../** @type {any} */ (window).__play, fleetStats: /** @type {any} */ (window).__fleet?.stats() ?? null }));
      const media = st.responses.filter((/** @type {any} */ r) => renditionOf(r.url) !== null && !/init/.test(r.url)).sort((/** @type {any} */ a, /** @type {any} */ b) => a.doneMs - b.doneMs);
      const top = media.find((/** @type {any} */ r) => renditionOf(r.url) === TOP);
      return { errors: st.errors, stalls: st.stalls, responses: st.responses, topAtMs: top ? top.doneMs : null, rungs: media.map((/** @type {any} */ r) => renditionOf(r.url)).join(''), directBy: st.fleetStats?.directBy ?? null };
    } finally {
      await page.close();
    }
  }

  for (const c of PLAYERS) {
    it(`${c.player}: the fleet far faster than the direct path: climbs to the top rendition no later than on a fast direct path; the slow direct path alone never does`, async () => {
      const fast = await play(c, null);
      site.setRates({ browser: SLOW_PATH_KBPS * KBIT });
      const slow = await play(c, null);
      const fleetFast = await play(c, { mode: 'coded', n: 4 });
      console.log(`      ${c.player}: direct fast ${fast.rungs} (top at ${fast.topAtMs?.toFixed(0)} ms), direct slow ${slow.rungs}, fleet ${fleetFast.rungs} (top at ${fleetFast.topAtMs?.toFixed(0)} ms)`);
      for (const run of [fast, slow, fleetFast]) {
        assert.deepEqual(run.errors, [], 'the player saw errors');
        assert.deepEqual(await wrongResponses(mediaDir, run.responses), [], 'responses differ from the files');
      }
      assert.ok(fast.topAtMs !== null, `on the fast direct path the player never reached the top rendition: ${fast.rungs}`);
      assert.equal(slow.topAtMs, null, `the slow direct path carried the top rendition: ${slow.rungs}`);
      assert.ok(fleetFast.topAtMs !== null && fleetFast.topAtMs <= fast.topAtMs + CLIMB_SLACK_MS,
        `through the fleet the top rendition came at ${fleetFast.topAtMs} ms, direct at ${fast.topAtMs} ms: ${fleetFast.rungs}`);
    });

    it(`${c.player}: the fleet slower (its origin fetches share a link of ${SLOW_PATH_KBPS} kbit/s): no more stalls than direct at that rate, mostly below the top rendition`, async () => {
      site.setRates({ browser: SLOW_PATH_KBPS * KBIT });
      const direct = await play(c, null);
      // one link for all the proxies' origin fetches; the direct path stays as slow, so a segment the fleet gives up on is no faster
      site.setRates({ browser: SLOW_PATH_KBPS * KBIT, proxy: SLOW_PATH_KBPS * KBIT });
      const fresh = await startLocalFleet({ proxyCount: 2, allowedHosts: [site.host] }); // nothing cached from the other tests
      let run;
      try {
        run = await play(c, { mode: 'range-http', n: 2, origo: fresh.origoUrl });
      } finally {
        await fresh.close();
      }
      console.log(`      ${c.player}: direct at that rate ${direct.rungs}, ${direct.stalls} stalls; slow fleet ${run.rungs}, ${run.stalls} stalls, direct ${JSON.stringify(run.directBy)}`);
      assert.deepEqual(run.errors, [], 'the player saw errors');
      assert.deepEqual(await wrongResponses(mediaDir, run.responses), [], 'responses differ from the files');
      assert.ok(run.stalls <= direct.stalls, `${run.stalls} stalls through the slow fleet, ${direct.stalls} direct at the same rate`);
      // a segment the proxies fetched ahead comes fast, and a player may try the top rendition on it; it must not stay there
      const topShare = [...run.rungs].filter((x) => Number(x) === TOP).length / run.rungs.length;
      assert.ok(topShare <= MAX_TOP_SHARE_SLOW, `through the slow fleet ${Math.round(topShare * 100)}% of segments were of the top rendition: ${run.rungs}`);
    });
  }
});
