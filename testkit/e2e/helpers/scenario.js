// Shared steps of the browser end-to-end tests: build the extension, set its options through
// extension storage (as the options page does), watch the test player, check the bytes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import path from 'node:path';

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const EXT_DIST = path.join(REPO, 'extension', 'dist');
export const SCREENSHOT_DIR = path.join(REPO, 'test-artifacts', 'screenshots');
const RECORDS_TIMEOUT_MS = 15_000; // the background batches records; Origo stores them within ms

export async function buildExtension() {
  await run(process.execPath, [path.join(REPO, 'extension', 'build', 'build.js'), '--no-zip'], { timeout: 120_000 });
}

/**
 * Write the extension's settings from one of its own pages (the page cannot reach them).
 * @param {import('puppeteer-core').Browser} browser
 * @param {string} base  extension base URL
 * @param {object} settings
 */
export async function setOptions(browser, base, settings) {
  const page = await browser.newPage();
  try {
    await openExtensionPage(page, base, 'options.html');
    await page.evaluate((s) => (globalThis.browser ?? globalThis.chrome).storage.local.set({ settings: s }), settings);
  } finally {
    await page.close();
  }
}

/**
 * Open one of the extension's pages in `page`. Chromium navigates there directly; Firefox's
 * WebDriver BiDi refuses moz-extension: URLs, so the tab goes to the web-accessible frame page
 * first (as a page could) and that extension page moves on to the wanted one.
 * @param {import('puppeteer-core').Page} page
 * @param {string} base
 * @param {string} file
 */
export async function openExtensionPage(page, base, file) {
  if (base.startsWith('chrome-extension:')) {
    await page.goto(`${base}${file}`);
    return;
  }
  await page.goto('about:blank');
  await Promise.all([page.waitForNavigation(), page.evaluate((u) => { location.href = u; }, `${base}frame.html`)]);
  await Promise.all([page.waitForNavigation(), page.evaluate((u) => { location.href = u; }, `${base}${file}`)]);
}

/**
 * Per-tab statistics from the background, asked from an extension page.
 * @param {import('puppeteer-core').Browser} browser
 * @param {string} base
 * @param {string} pageUrlPrefix  the tab is found by its URL
 */
export async function tabStats(browser, base, pageUrlPrefix) {
  const page = await browser.newPage();
  try {
    await openExtensionPage(page, base, 'options.html');
    return await page.evaluate(async (prefix) => {
      const api = globalThis.browser ?? globalThis.chrome;
      const tabs = await api.tabs.query({});
      const tab = tabs.find((t) => t.url?.startsWith(prefix));
      if (!tab) return { tabId: null, stats: null };
      const res = await api.runtime.sendMessage({ t: 'tab-stats', tabId: tab.id });
      return { tabId: tab.id, stats: res?.stats ?? null };
    }, pageUrlPrefix);
  } finally {
    await page.close();
  }
}

/**
 * @param {import('puppeteer-core').Page} page
 * @param {number} seconds
 * @param {number} timeoutMs
 */
export async function waitForPlayback(page, seconds, timeoutMs) {
  try {
    await page.waitForFunction((s) => document.querySelector('video').currentTime >= s || /** @type {any} */ (window).__player?.errors.length > 0, { timeout: timeoutMs, polling: 250 }, seconds);
  } catch (err) {
    const st = await playerState(page).catch(() => null);
    throw new Error(`playback did not reach ${seconds} s: ${err.message}; player: ${JSON.stringify(st)?.slice(0, 1500)}`);
  }
  const st = await playerState(page);
  assert.deepEqual(st.errors, [], 'the player saw errors');
  assert.ok(st.currentTime >= seconds, `currentTime ${st.currentTime}`);
  return st;
}

/** @param {import('puppeteer-core').Page} page */
export function playerState(page) {
  return page.evaluate(() => ({ .../** @type {any} */ (window).__player, currentTime: document.querySelector('video').currentTime, videoError: document.querySelector('video').error?.code ?? null }));
}

/**
 * Every chunk the player got is byte-identical to the same range of the file.
 * @param {{start: number, end: number, bytes: number, sha: string}[]} chunks
 * @param {Buffer} video
 */
export function assertBytesExact(chunks, video) {
  assert.ok(chunks.length > 0, 'no chunks');
  for (const c of chunks) {
    const want = video.subarray(c.start, c.end + 1);
    assert.equal(c.bytes, want.length, `chunk ${c.start}-${c.end} length`);
    assert.equal(c.sha, createHash('sha256').update(want).digest('hex'), `chunk ${c.start}-${c.end} bytes differ from the direct download`);
  }
}

/**
 * Wait until Origo stored at least `count` client records, and return them.
 * @param {{store: {listClientRecords: (p?: object) => Promise<object[]>}}} origo
 * @param {(r: any) => boolean} filter
 * @param {number} count
 */
export async function waitForRecords(origo, filter, count) {
  const deadline = Date.now() + RECORDS_TIMEOUT_MS;
  for (;;) {
    const records = (await origo.store.listClientRecords({ limit: 1000 })).filter(filter);
    if (records.length >= count || Date.now() > deadline) return records;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Stop the player from asking for more chunks and wait until the one in flight is appended.
 * @param {import('puppeteer-core').Page} page
 */
export async function quietPlayer(page) {
  await page.evaluate(() => { /** @type {any} */ (window).__player.stop = true; });
  await page.waitForFunction(() => !(/** @type {any} */ (window).__player.inFlight), { timeout: 30_000, polling: 100 });
  return playerState(page);
}
