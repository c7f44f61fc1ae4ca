// The player plugins (@mutp/players) with real players from npm in headless Chromium, no
// extension: the page loads the browser bundle, makes a fleet and hands it to hls.js (fLoader,
// pLoader), Shaka (scheme plugin) or dash.js (XHRLoader). Every segment the player got is
// byte-exact with the origin's head, ≥ 95% of them came through the fleet in the mode asked
// for, and Origo has a record for each. When the whole fleet dies mid-play, the player plays on
// from its own loader, still byte-exact.
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { wrongResponses } from '@mutp/testkit/e2e/players/check';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';
import { waitForRecords } from '@mutp/testkit/e2e/helpers/scenario';
import { buildPlayersBundle } from '@mutp/players/bundle';

const PLAY_SECONDS = 6; // three 2 s segments per track
const PLAY_TIMEOUT_MS = 60_000; // a loaded 2-core box
const MIN_FLEET_SHARE = 0.95;
const AFTER_DEATH_SECONDS = 6; // played on after the fleet died: three more segments per track, from the players' own loaders
const DURING_AFTER_SEGMENTS = 3; // the fleet dies once the player has this many segments: the players buffer ahead fast on loopback
const PLAYERS = [
  { player: 'hls', src: 'hls/index.m3u8' },
  { player: 'shaka', src: 'dash1/list.mpd' },
  { player: 'dash', src: 'dash/stream.mpd' },
];
const MODES = ['coded', 'uncoded', 'parallel-http', 'range-http'];

describe('player plugins e2e: hls.js, Shaka and dash.js through the fleet without the extension (Chromium)', function () {
  this.timeout(600_000);
  let mediaDir, site, fleet, chrome, bundleDir;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'ffmpeg'] });
    bundleDir = await mkdtemp(path.join(os.tmpdir(), 'mutp-players-bundle-'));
    [mediaDir] = await Promise.all([testStreams(), buildPlayersBundle(bundleDir)]);
    site = await startPlayerSite({ mediaDir, pluginDir: bundleDir });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    chrome = await launchChromium(null);
  });

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  });

  /**
   * One page load played for `seconds`; its state and the site's segment requests meanwhile.
   * @param {{player: string, src: string, origo?: string}} c  origo: another fleet's Origo @param {string} mode @param {number} seconds
   * @param {() => Promise<void>} [during]  runs once the player has its first DURING_AFTER_SEGMENTS segments
   */
  async function play(c, mode, seconds, during) {
    const hitsBefore = site.hits.length;
    const page = await chrome.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      const q = new URLSearchParams({ player: c.player, src: `${site.url}/media/${c.src}`, plugin: '1', origo: c.origo ?? fleet.origoUrl, mode, n: '4' });
      await page.goto(`${site.url}/play.html?${q}`);
      const reach = (/** @type {number} */ s) => page.waitForFunction((t) => document.querySelector('video').currentTime >= t || /** @type {any} */ (window).__play.errors.length > 0,
        { timeout: PLAY_TIMEOUT_MS, polling: 250 }, s).catch(() => {});
      if (during) {
        await page.waitForFunction((k) => /** @type {any} */ (window).__play?.responses.length >= k, { timeout: PLAY_TIMEOUT_MS, polling: 20 }, DURING_AFTER_SEGMENTS);
        await during();
      }
      await reach(seconds);
      const st = await page.evaluate(() => ({ .../** @type {any} */ (window).__play, currentTime: document.querySelector('video').currentTime, fleetStats: /** @type {any} */ (window).__fleet?.stats() }));
      const direct = site.hits.slice(hitsBefore).filter((h) => h.fromBrowser && !/\.(m3u8|mpd)$/.test(h.path));
      return { ...st, errors: [...st.errors, ...errors], direct };
    } finally {
      await page.close();
    }
  }

  for (const c of PLAYERS) {
    for (const mode of MODES) {
      it(`${c.player} in ${mode}: ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet in that mode, byte-exact, origin head, an Origo record each`, async () => {
        const st = await play(c, mode, PLAY_SECONDS);
        assert.deepEqual(st.errors, [], 'the player saw errors');
        assert.ok(st.currentTime >= PLAY_SECONDS, `played only ${st.currentTime} s`);
        assert.ok(st.responses.length >= 3, `only ${st.responses.length} segment responses`);
        assert.deepEqual(await wrongResponses(mediaDir, st.responses), [], 'responses differ from the files');
        const share = 1 - st.direct.length / st.responses.length;
        console.log(`      ${c.player} ${mode}: ${st.responses.length} segments, ${st.direct.length} direct, first frame ${Math.round(st.firstFrameMs)} ms, ${JSON.stringify(st.fleetStats.directBy)}`);
        assert.ok(share >= MIN_FLEET_SHARE, `${st.direct.length} of ${st.responses.length} segments fetched directly: ${JSON.stringify(st.fleetStats.fallbacks.slice(0, 3))}`);
        // the MUTP modes start over HTTP while the warm-up opens the WebRTC connections (the extension's rule); then they run in their mode
        assert.ok((st.fleetStats.fleetBytes[mode] ?? 0) > 0, `no segment ran in ${mode}: ${JSON.stringify(st.fleetStats.fleetBytes)}`);
        const urls = new Set(st.responses.map((r) => r.url));
        const want = Math.ceil(st.responses.length * MIN_FLEET_SHARE);
        const records = await waitForRecords(fleet.origo, (r) => urls.has(r.url) && r.error === null && r.segment === 'player', want);
        assert.ok(records.length >= want, `${records.length} Origo records for ${st.responses.length} segments`);
      });
    }
  }

  for (const c of PLAYERS) {
    it(`${c.player}: the whole fleet (Origo and every proxy) dies mid-play; the player plays on from its own loader, byte-exact`, async () => {
      const doomed = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
      let died = 0;
      try {
        const st = await play({ ...c, origo: doomed.origoUrl }, 'coded', PLAY_SECONDS + AFTER_DEATH_SECONDS, async () => {
          await doomed.close();
          died = performance.now();
        });
        assert.ok(died > 0, 'the fleet never died');
        assert.deepEqual(st.errors, [], 'the player saw errors');
        assert.ok(st.currentTime >= PLAY_SECONDS + AFTER_DEATH_SECONDS, `played only ${st.currentTime} s`);
        assert.deepEqual(await wrongResponses(mediaDir, st.responses), [], 'responses differ from the files');
        assert.ok(st.direct.length >= 3, `the player's own loader fetched ${st.direct.length} segments after the fleet died`);
        assert.ok(st.fleetStats.fleet >= 2, `the fleet served ${st.fleetStats.fleet} segments before it died`);
        console.log(`      ${c.player}: ${st.fleetStats.fleet} segments through the fleet, then ${st.direct.length} direct: ${JSON.stringify(st.fleetStats.directBy)}`);
      } finally {
        await doomed.close();
      }
    });
  }
});
