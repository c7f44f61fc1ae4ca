// `npm start`'s demo page, as a newcomer opens it: the URL it prints, in headless Chromium with no
// extension. hls.js plays the demo stream to its end through the local fleet with the player
// plugin; every segment is byte-exact with the committed stream, ≥ 95% came through the fleet,
// and the page's counters say so.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { requireOrSkip } from '@mutp/testkit/require-tool';
import { launchChromium } from '@mutp/testkit/e2e/helpers/browsers';
import { freePort } from '@mutp/testkit/origo-process';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STREAM_DIR = path.join(ROOT, 'demo', 'stream');
const STREAM_SEGMENTS = 12; // demo/stream: 24 s in 2 s segments, and its init section
const MIN_FLEET_SHARE = 0.95;
const PLAY_TIMEOUT_MS = 120_000; // 24 s of video, on a loaded 2-core box

describe('npm start: the demo page plays through the fleet with the player plugin (Chromium)', function () {
  this.timeout(240_000);
  let child, chrome, playerUrl;

  before(async function () {
    requireOrSkip(this, { commands: ['chromium'] });
    const port = await freePort();
    child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.js')], { cwd: ROOT, env: { ...process.env, ORIGO_PORT: String(port), DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { stdout += d; if (stdout.includes('Ctrl-C stops everything')) resolve(undefined); });
      child.once('exit', () => reject(new Error(`start.js exited early: ${stderr}`)));
    });
    playerUrl = /demo player: +(\S+)/.exec(stdout)?.[1];
    assert.ok(playerUrl, `npm start names the demo page:\n${stdout}`);
    chrome = await launchChromium(null);
  });

  after(async () => {
    await chrome?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
  });

  for (const mode of ['coded', 'range-http']) {
    it(`${mode}: plays to the end, byte-exact, ≥ ${MIN_FLEET_SHARE * 100}% of segments through the fleet, counters shown`, async () => {
      const page = await chrome.browser.newPage();
      const pageErrors = [];
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      try {
        await page.goto(`${playerUrl}?mode=${mode}&n=4`);
        await page.waitForFunction(() => /** @type {any} */ (window).__demo?.ended || /** @type {any} */ (window).__demo?.errors.length > 0, { timeout: PLAY_TIMEOUT_MS, polling: 500 });
        await page.waitForFunction(() => /** @type {any} */ (window).__demo.segments.every((s) => s.sha !== null), { timeout: 10_000 });
        const st = await page.evaluate(() => {
          const d = /** @type {any} */ (window).__demo;
          return { errors: d.errors, ended: d.ended, segments: d.segments, stats: d.fleet.stats(), shown: document.getElementById('fleet-segments')?.textContent, byMode: document.getElementById('by-mode')?.textContent };
        });
        assert.deepEqual([...st.errors, ...pageErrors], [], 'the page saw errors');
        assert.equal(st.ended, true);
        const wrong = [];
        for (const s of st.segments) {
          const file = await readFile(path.join(STREAM_DIR, path.basename(new URL(s.url).pathname)));
          if (s.sha !== createHash('sha256').update(file).digest('hex')) wrong.push(`${s.url} (${s.via}, ${s.bytes} bytes)`);
        }
        assert.deepEqual(wrong, [], 'segments differ from the stream\'s files');
        assert.ok(st.segments.length >= STREAM_SEGMENTS + 1, `${st.segments.length} segments for a stream of ${STREAM_SEGMENTS} and its init`);
        const viaFleet = st.segments.filter((s) => s.via === 'fleet').length;
        console.log(`      ${mode}: ${viaFleet} of ${st.segments.length} segments through the fleet; by mode ${st.byMode}`);
        assert.ok(viaFleet / st.segments.length >= MIN_FLEET_SHARE, `${viaFleet} of ${st.segments.length} through the fleet: ${JSON.stringify(st.stats.fallbacks.slice(0, 3))}`);
        assert.equal(st.shown, String(viaFleet), 'the page shows the fleet\'s segment count');
        assert.match(String(st.byMode), new RegExp(mode), 'the page shows the bytes of the mode asked for');
      } finally {
        await page.close();
      }
    });
  }
});
