// The extension in headless Debian Firefox ESR (temporary add-on) against the local fleet.
import assert from 'node:assert/strict';
import { readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { requireOrSkip } from '../support/require-tool.js';
import { testVideo, VIDEO_MIME } from './helpers/video.js';
import { startVideoSite } from './site/server.js';
import { startLocalFleet } from './helpers/fleet.js';
import { launchFirefox } from './helpers/browsers.js';
import { buildExtension, openExtensionPage, quietPlayer, setOptions, tabStats, waitForPlayback, assertBytesExact, waitForRecords, EXT_DIST, SCREENSHOT_DIR } from './helpers/scenario.js';
import { fleetModes } from './helpers/modes.js';
import { GECKO_ID } from '../../extension/build/manifest.js';

const PLAY_SECONDS = 10; // the issue's minimum for Firefox
const PLAY_TIMEOUT_MS = 45_000;
const NO_PROGRESS_MS = 2500;

describe('extension e2e: headless Firefox ESR', function () {
  this.timeout(150_000);
  let video, site, fleet, ff, playPage;
  const modes = fleetModes();

  before(async function () {
    requireOrSkip(this, { commands: ['firefox-esr', 'ffmpeg'] });
    const [file] = await Promise.all([testVideo(), buildExtension()]);
    video = await readFile(file);
    site = await startVideoSite({ video, mime: VIDEO_MIME });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    ff = await launchFirefox(path.join(EXT_DIST, 'firefox'), GECKO_ID);
    await setOptions(ff.browser, ff.base, {
      enabled: true, origoUrl: fleet.origo.url, patterns: [`${site.host}/videoplayback`],
      mode: 'random', randomModes: modes, n: 'random', noProgressTimeoutMs: NO_PROGRESS_MS,
    });
  });

  after(async () => {
    await ff?.close();
    await fleet?.close();
    await site?.close();
  });

  it(`plays ≥ ${PLAY_SECONDS} s with every chunk through the proxies, one Origo record each, byte-exact`, async () => {
    const hitsBefore = site.mediaHits.length;
    const page = await ff.browser.newPage();
    await page.goto(`${site.url}/`);
    await waitForPlayback(page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
    const st = await quietPlayer(page);
    assertBytesExact(st.chunks, video);
    const hits = site.mediaHits.slice(hitsBefore);
    assert.deepEqual(hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
    const records = await waitForRecords(fleet.origo, (r) => r.url.includes('/videoplayback'), st.chunks.length);
    assert.equal(records.length, st.chunks.length, 'one Origo record per chunk');
    for (const r of records) assert.ok(modes.includes(r.mode) && r.error === null);
    const { stats } = await tabStats(ff.browser, ff.base, site.url);
    assert.equal(stats?.fleet, st.chunks.length);
    playPage = page; // kept open: the popup screenshot shows its stats
  });

  it('saves a screenshot of the popup', async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const { tabId } = await tabStats(ff.browser, ff.base, site.url);
    const page = await ff.browser.newPage();
    await page.setViewport({ width: 360, height: 480 });
    await openExtensionPage(page, ff.base, `popup.html${tabId ? `?tab=${tabId}` : ''}`);
    await page.waitForFunction(() => document.getElementById('fleet').textContent !== '0', { timeout: 5000 }).catch(() => {});
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'extension-popup-firefox.png') });
    await page.close();
    await playPage?.close();
  });
});
