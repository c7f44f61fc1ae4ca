// The extension in headless Debian Chromium against the local fleet and the local video site.
import assert from 'node:assert/strict';
import { readFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { requireOrSkip } from '../support/require-tool.js';
import { testVideo, VIDEO_MIME } from './helpers/video.js';
import { startVideoSite } from './site/server.js';
import { startLocalFleet } from './helpers/fleet.js';
import { launchChromium } from './helpers/browsers.js';
import {
  buildExtension, quietPlayer, setOptions, tabStats, waitForPlayback, playerState, assertBytesExact, waitForRecords, EXT_DIST, SCREENSHOT_DIR,
} from './helpers/scenario.js';
import { fleetModes } from './helpers/modes.js';

const PLAY_SECONDS = 20; // the issue's minimum for Chromium
const PLAY_TIMEOUT_MS = 60_000; // 20 s of video on a loaded 2-core box
const NO_PROGRESS_MS = 2500; // the fallback timer, short so the fault tests stay fast

describe('extension e2e: headless Chromium', function () {
  this.timeout(180_000);
  let video, site, fleet, chrome, playPage;
  const modes = fleetModes();

  before(async function () {
    requireOrSkip(this, { commands: ['chromium', 'ffmpeg'] });
    const [file] = await Promise.all([testVideo(), buildExtension()]);
    video = await readFile(file);
    site = await startVideoSite({ video, mime: VIDEO_MIME });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    chrome = await launchChromium(path.join(EXT_DIST, 'chrome'));
    await setOptions(chrome.browser, chrome.base, {
      enabled: true, origoUrl: fleet.origo.url, patterns: [`${site.host}/videoplayback`],
      mode: 'random', randomModes: modes, n: 'random', noProgressTimeoutMs: NO_PROGRESS_MS,
    });
  });

  after(async () => {
    await chrome?.close();
    await fleet?.close();
    await site?.close();
  });

  it(`plays ≥ ${PLAY_SECONDS} s with every chunk through the proxies, one Origo record each, random modes, byte-exact`, async () => {
    const hitsBefore = site.mediaHits.length;
    const page = playPage = await chrome.browser.newPage(); // kept open: the popup screenshot shows its stats
    await page.goto(`${site.url}/`);
    await waitForPlayback(page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
    const st = await quietPlayer(page);
    const chunks = st.chunks;
    assert.ok(chunks.length >= 5, `only ${chunks.length} chunks`);
    assertBytesExact(chunks, video);
    const hits = site.mediaHits.slice(hitsBefore);
    assert.deepEqual(hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
    for (const c of chunks) assert.ok(hits.some((h) => h.range === `${c.start}-${c.end}`), `no proxy fetched ${c.start}-${c.end}`);
    // faithful emulation: the XHR chunks saw progress events, the fetch chunks the media type
    assert.ok(chunks.filter((c) => c.api === 'xhr').every((c) => c.progress >= 1));
    assert.ok(chunks.filter((c) => c.api === 'fetch').every((c) => c.type === 'video/mp4'));

    const records = await waitForRecords(fleet.origo, (r) => r.url.includes('/videoplayback'), chunks.length);
    assert.equal(records.length, chunks.length, 'one Origo record per chunk');
    assert.deepEqual(records.map((r) => /range=(\d+-\d+)/.exec(r.url)?.[1]).sort(), chunks.map((c) => `${c.start}-${c.end}`).sort());
    for (const r of records) {
      assert.equal(r.error, null, `record with error ${JSON.stringify(r.error)}`);
      assert.ok(modes.includes(r.mode), r.mode);
    }
    assert.ok(new Set(records.map((r) => r.mode)).size >= 2, `modes not random: ${records.map((r) => r.mode)}`);
    const { stats } = await tabStats(chrome.browser, chrome.base, site.url);
    assert.equal(stats.fleet, chunks.length);
    assert.equal(stats.direct, 0);
  });

  it('leaves a page that does not match the patterns untouched', async () => {
    const page = await chrome.browser.newPage();
    await page.goto(`${site.url}/plain.html`);
    const got = await page.evaluate(async () => {
      const buf = new Uint8Array(await (await fetch('/plain.bin')).arrayBuffer());
      let sum = 0;
      for (const b of buf) sum = (sum * 31 + b) >>> 0;
      return { len: buf.length, sum, frames: document.querySelectorAll('iframe').length };
    });
    let sum = 0;
    for (const b of site.plain) sum = (sum * 31 + b) >>> 0;
    assert.deepEqual(got, { len: site.plain.length, sum, frames: 0 });
    await page.close();
  });

  it('saves screenshots of the popup and the options page', async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const { tabId } = await tabStats(chrome.browser, chrome.base, site.url);
    const page = await chrome.browser.newPage();
    await page.setViewport({ width: 360, height: 480 });
    await page.goto(`${chrome.base}popup.html${tabId ? `?tab=${tabId}` : ''}`);
    await page.waitForFunction(() => document.getElementById('fleet').textContent !== '0', { timeout: 5000 }).catch(() => {});
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'extension-popup-chromium.png') });
    await page.setViewport({ width: 800, height: 720 });
    await page.goto(`${chrome.base}options.html`);
    await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('origoUrl')).value !== '');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'extension-options-chromium.png') });
    await page.close();
    await playPage?.close();
  });

  it('keeps playing via the direct fetch when all proxies are killed mid-playback, and logs the fallback', async () => {
    const page = await chrome.browser.newPage();
    await page.goto(`${site.url}/`);
    await page.waitForFunction(() => /** @type {any} */ (window).__player?.appended >= 2, { timeout: PLAY_TIMEOUT_MS, polling: 100 });
    const before = await playerState(page);
    const hitsBefore = site.mediaHits.length;
    await fleet.killProxies();
    // playback goes on: two more chunks and 4 more seconds after the kill
    await page.waitForFunction((n, t) => /** @type {any} */ (window).__player.appended >= n && document.querySelector('video').currentTime >= t,
      { timeout: PLAY_TIMEOUT_MS, polling: 250 }, before.appended + 2, before.currentTime + 4);
    const st = await playerState(page);
    assert.deepEqual(st.errors, []);
    assert.equal(st.videoError, null, 'an error event on <video>');
    assertBytesExact(st.chunks, video);
    assert.ok(site.mediaHits.slice(hitsBefore).some((h) => h.fromBrowser), 'no chunk was fetched directly after the kill');
    const { stats } = await tabStats(chrome.browser, chrome.base, site.url);
    assert.ok(stats.direct >= 1 && stats.fallbacks.length >= 1, `fallbacks not logged: ${JSON.stringify(stats)}`);
    assert.ok(stats.fallbacks.every((f) => /^(mid-body )?ERR_[A-Z_]+/.test(f.reason)), JSON.stringify(stats.fallbacks));
    await page.close();
  });

  it('plays directly when Origo is down', async () => {
    await fleet.closeOrigo();
    const hitsBefore = site.mediaHits.length;
    const page = await chrome.browser.newPage();
    await page.goto(`${site.url}/`);
    const st = await waitForPlayback(page, 4, PLAY_TIMEOUT_MS);
    assert.equal(st.videoError, null);
    assertBytesExact(st.chunks, video);
    const hits = site.mediaHits.slice(hitsBefore);
    assert.ok(hits.length >= st.chunks.length && hits.every((h) => h.fromBrowser), 'chunks went elsewhere than direct');
    await page.close();
  });
});

export { playerState };
