// The extension in headless Debian Firefox ESR (temporary add-on) against the local fleet, all
// four modes. Runs INSIDE the network namespace test/e2e/firefox.test.js creates (not .test.js,
// so the root mocha globs never pick it up): Firefox offers no loopback ICE candidate, so the
// proxies bind WebRTC to the namespace's own address (MUTP_E2E_NETNS_ADDR) and Firefox offers it.
// WebDriver BiDi cannot open moz-extension: pages, so the options come from a TEST build
// (extension/build/build.js --config FILE --out DIR), and the popup and options pages are
// framed by a site page for their screenshots (web-accessible in the test build only).
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { testVideo, VIDEO_MIME } from '@mutp/testkit/e2e/helpers/video';
import { startVideoSite } from '@mutp/testkit/e2e/site/server';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchFirefox } from '@mutp/testkit/e2e/helpers/browsers';
import { quietPlayer, waitForPlayback, assertBytesExact, waitForRecords, REPO, SCREENSHOT_DIR } from '@mutp/testkit/e2e/helpers/scenario';
import { frameExtensionPage, setFirefoxOptions } from '@mutp/testkit/e2e/helpers/firefox-pages';
import { GECKO_ID } from '@mutp/extension/manifest';
import { WARMING } from '@mutp/extension/warm-up'; // a MUTP chunk asked for while the page's WebRTC connections still opened runs in Parallel HTTP
import { MUTP_MODES } from '@mutp/extension/settings';

const run = promisify(execFile);
const PLAY_SECONDS = 10; // long enough for several segments
const PLAY_TIMEOUT_MS = 45_000;
const NO_PROGRESS_MS = 2500;
const ALL_MODES = ['parallel-http', 'uncoded', 'coded', 'range-http']; // the extension's campaign draws one at random per chunk
const MUTP_PLAY_SECONDS = 3; // per pinned MUTP mode: two or more 1 MiB chunks, a few seconds of suite time
const MIN_CHUNKS = 3; // 10 s of a 2 Mbit/s video is more than two 1 MiB chunks
const POPUP_WAIT_MS = 10_000; // the popup refreshes its stats every second; the record reaches the background in ms
const POPUP_HEIGHT_PX = 360; // the popup's content with four proxy rows, Options link included
const BIND_ADDR = process.env.MUTP_E2E_NETNS_ADDR;
const LOOPBACK_PAGES = 2; // each page may pay one WebRTC failure (with the fleet host in the background page, the second finds the breaker open)
const LOOPBACK_PLAY_SECONDS = 10; // chunks after the warm-up's ~1.2 s too (the player buffers 8 s ahead in 1 MiB chunks)

describe('extension e2e: headless Firefox ESR in a network namespace', function () {
  this.timeout(150_000);
  let video, site, fleet, loopbackFleet, ff, buildDir, settings;

  before(async function () {
    if (!BIND_ADDR) throw new Error('run through test/e2e/firefox.test.js: it creates the namespace and sets MUTP_E2E_NETNS_ADDR');
    video = await readFile(await testVideo());
    site = await startVideoSite({ video, mime: VIDEO_MIME });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host], rtcBindAddress: BIND_ADDR });
    buildDir = await mkdtemp(path.join(os.tmpdir(), 'mutp-ext-ff-'));
    const config = path.join(buildDir, 'config.json');
    settings = {
      enabled: true, origoUrl: fleet.origo.url, patterns: [`${site.host}/videoplayback`], detect: 'off', // the pattern path; default detection: players.test.js
      mode: 'random', randomModes: ALL_MODES, n: 'random', noProgressTimeoutMs: NO_PROGRESS_MS,
    };
    await writeFile(config, JSON.stringify(settings));
    await run(process.execPath, [path.join(REPO, 'extension', 'build', 'build.js'), '--no-zip', '--config', config, '--out', buildDir], { timeout: 120_000 });
    ff = await launchFirefox(path.join(buildDir, 'firefox'), GECKO_ID);
  });

  after(async () => {
    await ff?.close();
    await fleet?.close();
    await loopbackFleet?.close();
    await site?.close();
    if (buildDir) await rm(buildDir, { recursive: true, force: true });
  });

  /**
   * Play the test video in a fresh tab with the settings' modes narrowed to `modes`, and check:
   * every chunk came through the proxies, byte-exact, one Origo record each, in one of `modes`
   * (or in Parallel HTTP for a MUTP mode whose connections were still opening), without error.
   * Returns this playback's records.
   * @param {string[]} modes
   * @param {number} seconds
   * @param {{on?: any, allowed?: (r: any) => boolean}} [o]  on: another fleet (its Origo URL is set); allowed: which records pass
   */
  async function playThroughFleet(modes, seconds, { on = fleet, allowed = (r) => r.error === null && (modes.includes(r.mode) || (r.mode === 'parallel-http' && modes.includes(r.modeWanted) && r.modeWhy === WARMING)) } = {}) {
    const origoRecords = () => on.origo.store.listClientRecords({ limit: 1000 });
    const seen = new Set((await origoRecords()).map((r) => r.id));
    const hitsBefore = site.mediaHits.length;
    const page = await ff.browser.newPage();
    try {
      await page.goto(`${site.url}/plain.html`);
      await setFirefoxOptions(page, ff.base, { ...settings, origoUrl: on.origo.url, mode: 'random', randomModes: modes });
      await page.goto(`${site.url}/`);
      const frames = await page.waitForFunction(() => [...document.querySelectorAll('iframe')].map((f) => f.src).join(' '), { timeout: PLAY_TIMEOUT_MS, polling: 100 });
      assert.match(await frames.jsonValue(), /^moz-extension:\/\/[0-9a-f-]{36}\/frame\.html$/, 'the download frame is not the extension page');
      await waitForPlayback(page, seconds, PLAY_TIMEOUT_MS);
      const st = await quietPlayer(page);
      assertBytesExact(st.chunks, video);
      const hits = site.mediaHits.slice(hitsBefore);
      assert.deepEqual(hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
      // a proxy may serve a range an earlier playback made it fetch from its cache: any hit counts
      for (const c of st.chunks) assert.ok(site.mediaHits.some((h) => !h.fromBrowser && h.range === `${c.start}-${c.end}`), `no proxy fetched ${c.start}-${c.end}`);
      const served = (r) => r.error === null;
      const records = await waitForRecords(on.origo, (r) => !seen.has(r.id) && r.url.includes('/videoplayback'), st.chunks.length);
      const ok = records.filter(served);
      assert.equal(ok.length, st.chunks.length, 'one Origo record per chunk served');
      assert.deepEqual(ok.map((r) => /range=(\d+-\d+)/.exec(r.url)?.[1]).sort(), st.chunks.map((c) => `${c.start}-${c.end}`).sort());
      for (const r of records) assert.ok(allowed(r), JSON.stringify({ mode: r.mode, modeWanted: r.modeWanted, modeWhy: r.modeWhy, error: r.error }));
      console.log(`      ${st.chunks.length} chunks, ${st.currentTime.toFixed(1)} s played; modes: ${records.map((r) => `${r.mode}/N=${r.n}`).join(', ')}`);
      return records;
    } finally {
      await page.close();
    }
  }

  it(`plays ≥ ${PLAY_SECONDS} s, modes drawn at random from all four, every chunk through the proxies, one Origo record each, byte-exact`, async () => {
    const records = await playThroughFleet(ALL_MODES, PLAY_SECONDS);
    assert.ok(records.length >= MIN_CHUNKS, `only ${records.length} chunks`);
  });

  // The random draw may miss MUTP in a short playback, so each MUTP mode also plays on its own:
  // proof that Firefox's data channels reach node-datachannel and carry byte-exact media.
  for (const mode of MUTP_MODES) {
    it(`plays ≥ ${MUTP_PLAY_SECONDS} s in ${mode} MUTP (WebRTC data channels), byte-exact, logged to Origo without error`, async () => {
      const records = await playThroughFleet([mode], MUTP_PLAY_SECONDS);
      assert.ok(records.some((r) => r.mode === mode) && records.every((r) => r.n >= 1), JSON.stringify(records.map((r) => [r.mode, r.n, r.modeWhy])));
    });
  }

  // The fleet client lives in the background page: the second page's MUTP downloads use the
  // connections the first page opened (or its warm-up did), and open none.
  it('a second page load reuses the WebRTC connections of the first (the fleet client lives in the background page)', async () => {
    await playThroughFleet(['coded'], MUTP_PLAY_SECONDS);
    const first = await fleetHostConnections();
    assert.ok(first.connects >= 1, `no WebRTC connection opened: ${JSON.stringify(first)}`);
    await playThroughFleet(['coded'], MUTP_PLAY_SECONDS);
    const second = await fleetHostConnections();
    console.log(`      after the first page ${JSON.stringify(first)}, after the second ${JSON.stringify(second)}`);
    // the second page's own warm-up found connections the first page's left open (idle, or lent to
    // the second page's downloads, which may take them before the round runs at its first frame)
    assert.ok(second.lastWarmUp && second.lastWarmUp.at > (first.lastWarmUp?.at ?? -1), `the second page ran no warm-up: ${JSON.stringify(second.lastWarmUp)}`);
    assert.ok(second.lastWarmUp.outcomes.some((/** @type {any} */ o) => o.ok && o.kept > 0), `the second page's warm-up found no kept connection: ${JSON.stringify(second.lastWarmUp)}`);
    assert.ok(second.reuses > first.reuses, `the second page's downloads used no kept connection: ${JSON.stringify({ first, second })}`);
  });

  /** The background page's fleet host's pooled connection counters, asked from a framed extension page. */
  async function fleetHostConnections() {
    const page = await ff.browser.newPage();
    try {
      await page.goto(`${site.url}/plain.html`);
      const frame = await frameExtensionPage(page, ff.base, 'options.html');
      const got = await frame.evaluate(() => /** @type {any} */ (globalThis).browser.runtime.sendMessage({ t: 'fleet-connections' }));
      assert.ok(got && Number.isInteger(got.connects), `no fleet host in the background page: ${JSON.stringify(got)}`);
      return got;
    } finally {
      await page.close();
    }
  }

  // Proxies whose WebRTC listens on 127.0.0.1 only: Firefox offers no loopback candidate, so no
  // data channel can open. The page's warm-up finds out (ERR_RTC_NO_CANDIDATE_PAIR) and opens the
  // WebRTC breaker; chunks asked for meanwhile run in Parallel HTTP, so at most one chunk per page
  // waits on a WebRTC connect (then retried in Parallel HTTP at once), and later chunks skip WebRTC.
  it(`proxies' WebRTC on loopback only: ${LOOPBACK_PAGES} pages play in Parallel HTTP, ≤ 1 chunk per page waits on WebRTC, the code reaches Origo, byte-exact`, async () => {
    loopbackFleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] }); // WebRTC bound to 127.0.0.1
    const mutp = ['coded', 'uncoded'];
    for (let page = 1; page <= LOOPBACK_PAGES; page++) {
      // allowed: a served chunk (in Parallel HTTP for a MUTP mode, saying why), or a MUTP attempt that failed on WebRTC
      const records = await playThroughFleet(mutp, LOOPBACK_PLAY_SECONDS, {
        on: loopbackFleet,
        allowed: (r) => (r.error === null ? r.mode === 'parallel-http' && mutp.includes(r.modeWanted) && /^ERR_RTC_/.test(r.modeWhy) : mutp.includes(r.mode)),
      });
      const waited = records.filter((r) => r.error !== null);
      // skipped by the breaker: a chunk with the failure's code that was not itself a retry after a failed attempt
      const skipped = records.filter((r) => r.error === null && r.modeWhy === 'ERR_RTC_NO_CANDIDATE_PAIR' && !waited.some((w) => w.url === r.url));
      const summary = JSON.stringify(records.map((r) => [r.mode, r.modeWhy ?? null, r.error?.code ?? null]));
      console.log(`      page ${page}: ${records.length} records, ${waited.length} chunk(s) waited on WebRTC, ${skipped.length} skipped it by the breaker`);
      assert.ok(waited.length <= 1, `chunks that waited on WebRTC: ${summary}`);
      for (const r of waited) assert.ok(/^ERR_RTC_|ERR_ALL_PROXIES_FAILED/.test(r.error.code), `a failed attempt with its code: ${summary}`);
      assert.ok(skipped.length >= 1, `later chunks skip WebRTC with the failure's code in their records: ${summary}`);
    }
  });

  it('the popup (framed by a tab that fetched a chunk) shows that chunk; screenshots of popup and options', async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const page = await ff.browser.newPage();
    await page.setViewport({ width: 800, height: 760 });
    await page.goto(`${site.url}/plain.html`);
    await setFirefoxOptions(page, ff.base, settings);
    await page.goto(`${site.url}/plain.html`);
    // one chunk from this tab, so the popup (shown inside this tab) has stats to show
    await page.evaluate(async () => { await (await fetch('/videoplayback?id=popup&mime=video/mp4&range=0-99999')).arrayBuffer(); });
    const popup = await frameExtensionPage(page, ff.base, 'popup.html', { height: POPUP_HEIGHT_PX });
    const shown = await popup.waitForFunction(() => Number(document.getElementById('fleet')?.textContent) >= 1, { timeout: POPUP_WAIT_MS, polling: 200 })
      .then(() => null, async () => popup.evaluate(() => document.body.innerText));
    assert.equal(shown, null, `the popup shows no chunk through the fleet:\n${shown}`);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'extension-popup-firefox.png') });
    await frameExtensionPage(page, ff.base, 'options.html', { height: 700 });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'extension-options-firefox.png') });
    await page.close();
  });
});
