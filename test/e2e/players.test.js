// Real players from npm (hls.js, dash.js, Shaka) on a local site the extension knows nothing
// about, in headless Chromium with DEFAULT settings (only the Origo URL set): the segments are
// recognised from the manifests (their names carry no media extension), go through the fleet,
// and reach the player byte-identical with the origin's head.
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { wrongResponses } from '@mutp/testkit/e2e/players/check';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';
import { buildExtension, setOptions, tabStats, waitForRecords, EXT_DIST } from '@mutp/testkit/e2e/helpers/scenario';

const PLAY_SECONDS = 6; // three 2 s segments per track played
const PLAY_TIMEOUT_MS = 60_000; // a loaded 2-core box
const REUSE_PLAY_SECONDS = 4; // two segments per track: the warm-up's connections carry MUTP downloads
const MIN_FLEET_SHARE = 0.95; // the target for default settings on a site the project did not write
const CASES = [
  { player: 'hls', src: 'hls/index.m3u8', what: 'HLS fMP4, one file, EXT-X-MAP + EXT-X-BYTERANGE' },
  // separate segment files: each download names the next one, which the proxies fetch meanwhile
  { player: 'dash', src: 'dash/stream.mpd', what: 'DASH SegmentTemplate, segments without extension', hintsNext: true },
  { player: 'shaka', src: 'dash1/list.mpd', what: 'DASH SegmentList, Initialization range + mediaRange' },
  { player: 'shaka', src: 'hls/index.m3u8', what: 'HLS byte ranges' },
];

describe('extension e2e: real players from npm, default settings (Chromium)', function () {
  this.timeout(240_000);
  let mediaDir, site, fleet, chrome;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'ffmpeg'] });
    [mediaDir] = await Promise.all([testStreams(), buildExtension()]);
    site = await startPlayerSite({ mediaDir });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    chrome = await launchChromium(path.join(EXT_DIST, 'chrome'));
    await setOptions(chrome.browser, chrome.base, { origoUrl: fleet.origo.url }); // nothing else: no pattern, default detection
  });

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
  });

  it('the fleet host page (the offscreen document) is made when the extension starts, before any page asks for it', async () => {
    const pages = (await chrome.browser.pages()).map((p) => p.url());
    assert.ok(!pages.some((u) => u.startsWith(site.url)), `a site page is open already: ${pages.join(', ')}`);
    await chrome.browser.waitForTarget((t) => t.url().endsWith('/offscreen.html'), { timeout: 10_000 });
  });

  it('what every page load runs (the content script in each frame, the download frame) carries no WebExtension polyfill (its set-up cost each ~14 ms of main thread)', async () => {
    for (const target of ['chrome', 'firefox']) {
      for (const entry of ['content-bridge.js', 'frame.js']) {
        const sources = await bundleSources(path.join(EXT_DIST, target), entry);
        assert.ok(sources.some((s) => s.endsWith('settings-store.js')), `${target} ${entry}: ${sources.join(', ')}`);
        assert.deepEqual(sources.filter((s) => s.includes('webextension-polyfill')), [], `${target} ${entry}`);
      }
    }
  });

  for (const c of CASES) {
    it(`${c.player}: ${c.what}: ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet, byte-exact, origin head, one record each`, async () => {
      const hitsBefore = site.hits.length;
      const readAheads = () => fleet.proxies.reduce((sum, p) => sum + p.cache().readAheads, 0);
      const readAheadsBefore = readAheads();
      const page = await chrome.browser.newPage();
      try {
        await page.goto(`${site.url}/play.html?player=${c.player}&src=${encodeURIComponent(`${site.url}/media/${c.src}`)}`);
        await page.waitForFunction((s) => document.querySelector('video').currentTime >= s || /** @type {any} */ (window).__play.errors.length > 0,
          { timeout: PLAY_TIMEOUT_MS, polling: 250 }, PLAY_SECONDS).catch(() => {});
        const st = await page.evaluate(() => ({ .../** @type {any} */ (window).__play, currentTime: document.querySelector('video').currentTime }));
        assert.deepEqual(st.errors, [], 'the player saw errors');
        assert.ok(st.currentTime >= PLAY_SECONDS, `played only ${st.currentTime} s`);
        assert.ok(st.responses.length >= 3, `only ${st.responses.length} segment responses`);
        assert.deepEqual(await wrongResponses(mediaDir, st.responses), [], 'responses differ from the files');
        const segHits = site.hits.slice(hitsBefore).filter((h) => !/\.(m3u8|mpd)$/.test(h.path));
        const direct = segHits.filter((h) => h.fromBrowser);
        const share = 1 - direct.length / st.responses.length;
        console.log(`      ${c.player} ${c.src}: ${st.responses.length} segments, ${direct.length} direct, first frame ${Math.round(st.firstFrameMs)} ms`);
        assert.ok(share >= MIN_FLEET_SHARE, `${direct.length} of ${st.responses.length} segments fetched directly: ${JSON.stringify(direct.slice(0, 5))}`);
        const urls = new Set(st.responses.map((r) => r.url));
        const records = await waitForRecords(fleet.origo, (r) => urls.has(r.url) && r.error === null, Math.ceil(st.responses.length * MIN_FLEET_SHARE));
        assert.ok(records.length >= Math.ceil(st.responses.length * MIN_FLEET_SHARE), `${records.length} Origo records for ${st.responses.length} segments`);
        const { stats } = await tabStats(chrome.browser, chrome.base, `${site.url}/play.html?player=${c.player}&src=${encodeURIComponent(`${site.url}/media/${c.src}`)}`);
        assert.ok(stats.manifests >= 1, `the popup counts no manifest: ${JSON.stringify(stats)}`);
        assert.ok((stats.byHow.manifest ?? 0) >= 1, `no segment recognised from the manifest: ${JSON.stringify(stats.byHow)}`);
        if (c.hintsNext) {
          const fetchedAhead = readAheads() - readAheadsBefore;
          assert.ok(fetchedAhead >= st.responses.length / 2, `the proxies fetched ${fetchedAhead} next segments ahead for ${st.responses.length} segments`);
        }
      } finally {
        await page.close();
      }
    });
  }

  it('a second page load reuses the WebRTC connections the first one opened (the fleet client outlives the page)', async () => {
    // N = 4 of 4 proxies: the second page uses the same proxies whatever order Origo lists them in
    await setOptions(chrome.browser, chrome.base, { origoUrl: fleet.origo.url, mode: 'coded', n: 4 });
    const url = `${site.url}/play.html?player=dash&src=${encodeURIComponent(`${site.url}/media/dash/stream.mpd`)}`;
    /** One page load played for a while; the fleet host's pool counters and last warm-up after it. */
    const play = async () => {
      const page = await chrome.browser.newPage();
      try {
        await page.goto(url);
        await page.waitForFunction((s) => document.querySelector('video').currentTime >= s || /** @type {any} */ (window).__play.errors.length > 0,
          { timeout: PLAY_TIMEOUT_MS, polling: 250 }, REUSE_PLAY_SECONDS);
        const st = await page.evaluate(() => /** @type {any} */ (window).__play);
        assert.deepEqual(st.errors, [], 'the player saw errors');
        assert.deepEqual(await wrongResponses(mediaDir, st.responses), [], 'responses differ from the files');
      } finally {
        await page.close();
      }
      return fleetHostConnections(chrome.browser);
    };
    const first = await play();
    assert.ok(first.connects >= 1, `the first page opened no WebRTC connection: ${JSON.stringify(first)}`);
    const second = await play();
    console.log(`      after the first page ${JSON.stringify(first)}, after the second ${JSON.stringify(second)}`);
    // the second page's own warm-up found connections the first page's left open (idle, or lent to
    // the second page's downloads, which may take them before the round runs at its first frame)
    assert.ok(second.lastWarmUp && second.lastWarmUp.at > (first.lastWarmUp?.at ?? -1), `the second page ran no warm-up: ${JSON.stringify(second.lastWarmUp)}`);
    assert.ok(second.lastWarmUp.outcomes.some((/** @type {any} */ o) => o.ok && o.kept > 0), `the second page's warm-up found no kept connection: ${JSON.stringify(second.lastWarmUp)}`);
    assert.ok(second.reuses > first.reuses, `the second page's downloads used no kept connection: ${JSON.stringify({ first, second })}`);
  });
});

/**
 * The extension's fleet host (its offscreen document): pooled WebRTC connection counters and its last warm-up.
 * @param {import('puppeteer-core').Browser} browser
 * @returns {Promise<{connects: number, reuses: number, idle: number, lastWarmUp: {at: number, outcomes: {id: string, ok: boolean, reused: boolean, kept: number}[]} | null}>}
 */
async function fleetHostConnections(browser) {
  const target = await browser.waitForTarget((t) => t.url().endsWith('/offscreen.html'), { timeout: 10_000 });
  const host = await target.asPage();
  return host.evaluate(() => {
    const h = /** @type {any} */ (window).__mutpFleetHost;
    return { ...h.connections(), lastWarmUp: h.lastWarmUp() };
  });
}

/**
 * The source files in a built script and the chunks it imports statically (its source maps).
 * @param {string} dir @param {string} file  relative to dir
 * @returns {Promise<string[]>}
 */
async function bundleSources(dir, file) {
  const seen = new Set();
  const sources = [];
  const visit = async (/** @type {string} */ f) => {
    if (seen.has(f)) return;
    seen.add(f);
    sources.push(...JSON.parse(await readFile(path.join(dir, `${f}.map`), 'utf8')).sources);
    const code = await readFile(path.join(dir, f), 'utf8');
    for (const m of code.matchAll(/(?:^|\n)(?:import|export)\b[^;]*?["'](\.{1,2}\/[^"']+\.js)["']/g)) await visit(path.join(path.dirname(f), m[1]));
  };
  await visit(file);
  return sources;
}
