// The extension in headless Debian Firefox ESR (temporary add-on) against the local fleet.
// WebDriver BiDi cannot open moz-extension: pages, so the options come from a TEST build
// (extension/build/build.js --config FILE --out DIR), and the popup and options pages are
// framed by a site page for their screenshots (web-accessible in the test build only).
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { requireOrSkip } from '../support/require-tool.js';
import { testVideo, VIDEO_MIME } from './helpers/video.js';
import { startVideoSite } from './site/server.js';
import { startLocalFleet } from './helpers/fleet.js';
import { launchFirefox } from './helpers/browsers.js';
import { quietPlayer, waitForPlayback, assertBytesExact, waitForRecords, REPO, SCREENSHOT_DIR } from './helpers/scenario.js';
import { GECKO_ID } from '../../extension/build/manifest.js';

const run = promisify(execFile);
const PLAY_SECONDS = 10; // the minimum for Firefox
const PLAY_TIMEOUT_MS = 45_000;
const NO_PROGRESS_MS = 2500;
// Firefox ESR 153 leaves loopback out of its ICE candidates here even with
// media.peerconnection.ice.loopback=true (its offer lists only 192.0.2.2 and fd00::2), and the test
// fleet may only listen on 127.0.0.1: MUTP cannot connect, so this run draws from the HTTP modes.
const FIREFOX_MODES = (process.env.MUTP_E2E_FIREFOX_MODES ?? 'parallel-http,range-http').split(',').map((m) => m.trim()).filter(Boolean);

describe('extension e2e: headless Firefox ESR', function () {
  this.timeout(150_000);
  let video, site, fleet, ff, buildDir;

  before(async function () {
    requireOrSkip(this, { commands: ['firefox-esr', 'ffmpeg'] });
    video = await readFile(await testVideo());
    site = await startVideoSite({ video, mime: VIDEO_MIME });
    fleet = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host] });
    buildDir = await mkdtemp(path.join(os.tmpdir(), 'mutp-ext-ff-'));
    const config = path.join(buildDir, 'config.json');
    await writeFile(config, JSON.stringify({
      enabled: true, origoUrl: fleet.origo.url, patterns: [`${site.host}/videoplayback`],
      mode: 'random', randomModes: FIREFOX_MODES, n: 'random', noProgressTimeoutMs: NO_PROGRESS_MS,
    }));
    await run(process.execPath, [path.join(REPO, 'extension', 'build', 'build.js'), '--no-zip', '--config', config, '--out', buildDir], { timeout: 120_000 });
    ff = await launchFirefox(path.join(buildDir, 'firefox'), GECKO_ID);
  });

  after(async () => {
    await ff?.close();
    await fleet?.close();
    await site?.close();
    if (buildDir) await rm(buildDir, { recursive: true, force: true });
  });

  it(`plays ≥ ${PLAY_SECONDS} s with every chunk through the proxies, one Origo record each, byte-exact`, async () => {
    const hitsBefore = site.mediaHits.length;
    const page = await ff.browser.newPage();
    await page.goto(`${site.url}/`);
    const frames = await page.waitForFunction(() => [...document.querySelectorAll('iframe')].map((f) => f.src).join(' '), { timeout: PLAY_TIMEOUT_MS, polling: 100 });
    assert.match(await frames.jsonValue(), /^moz-extension:\/\/[0-9a-f-]{36}\/frame\.html$/, 'the download frame is not the extension page');
    await waitForPlayback(page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
    const st = await quietPlayer(page);
    assert.ok(st.chunks.length >= 3, `only ${st.chunks.length} chunks`);
    assertBytesExact(st.chunks, video);
    const hits = site.mediaHits.slice(hitsBefore);
    assert.deepEqual(hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
    for (const c of st.chunks) assert.ok(hits.some((h) => h.range === `${c.start}-${c.end}`), `no proxy fetched ${c.start}-${c.end}`);
    const records = await waitForRecords(fleet.origo, (r) => r.url.includes('/videoplayback'), st.chunks.length);
    assert.equal(records.length, st.chunks.length, 'one Origo record per chunk');
    assert.deepEqual(records.map((r) => /range=(\d+-\d+)/.exec(r.url)?.[1]).sort(), st.chunks.map((c) => `${c.start}-${c.end}`).sort());
    for (const r of records) assert.ok(FIREFOX_MODES.includes(r.mode) && r.error === null, JSON.stringify({ mode: r.mode, error: r.error }));
    await page.close();
  });

  it('saves screenshots of the popup and the options page', async () => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const page = await ff.browser.newPage();
    await page.setViewport({ width: 800, height: 760 });
    await page.goto(`${site.url}/plain.html`);
    const base = await page.evaluate(async () => {
      // one chunk from this tab, so the popup (active tab: this one) has stats to show
      await (await fetch('/videoplayback?id=popup&mime=video/mp4&range=0-99999')).arrayBuffer();
      return new URL(document.querySelector('iframe').src).origin;
    });
    /** @type {Array<[string, number, string]>} */
    const pages = [['popup.html', 300, 'extension-popup-firefox.png'], ['options.html', 700, 'extension-options-firefox.png']];
    for (const [file, height, shot] of pages) {
      await page.evaluate((src, h) => {
        document.body.replaceChildren();
        const f = document.createElement('iframe');
        f.src = src;
        f.style.cssText = `width:780px;height:${h}px;border:0`;
        document.body.append(f);
        return new Promise((resolve) => f.addEventListener('load', resolve, { once: true }));
      }, `${base}/${file}`, height);
      await new Promise((r) => setTimeout(r, 1500)); // the popup refreshes its stats every second
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, shot) });
    }
    await page.close();
  });
});
