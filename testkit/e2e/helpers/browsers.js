// Headless Debian Chromium and Firefox ESR with the built extension loaded (puppeteer-core,
// recipes from the field notes). Each returns the extension's base URL so tests can open its
// options page and popup, and set the options through extension storage.
import puppeteer from 'puppeteer-core';
import { mkdtemp, rm, access } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';
export const FIREFOX = '/usr/bin/firefox-esr';
const SERVICE_WORKER_TIMEOUT_MS = 30_000; // field notes: the extension's worker can take a while on a busy box
// until the browser's DevTools endpoint is up (puppeteer's default: 30 s); Firefox ESR has taken
// longer than that to start on a 2-core box busy with a test run's other browsers and proxies
const LAUNCH_TIMEOUT_MS = 90_000;
/** launchChromium's options for a bench: no DevTools network reporting (watchNetwork, below). */
export const BENCH_BROWSER = Object.freeze({ watchNetwork: false });

/**
 * watchNetwork: puppeteer's DevTools network reporting, which tests read (page.on('response')).
 * With it the browser reports every request and every piece of a body to this process, and this
 * process keeps an object for each: work no viewer's browser does, and more of it for a fleet's
 * pages (a request to each proxy per segment) than for the player fetching directly. A bench
 * turns it off, so a mode is not charged for DevTools' bookkeeping.
 * @param {string | null} extDir  null: no extension (a bench's baseline)
 * @param {{ extraArgs?: string[], watchNetwork?: boolean }} [o]  extraArgs: e.g. --ignore-certificate-errors-spki-list=…
 *   (the namespace tests' test CA)
 */
export async function launchChromium(extDir, { extraArgs = [], watchNetwork = true } = {}) {
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'mutp-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM, headless: true, userDataDir, networkEnabled: watchNetwork, timeout: LAUNCH_TIMEOUT_MS,
    args: [
      '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...(extDir ? [`--disable-extensions-except=${extDir}`, `--load-extension=${extDir}`] : []),
      '--autoplay-policy=no-user-gesture-required',
      '--disable-features=WebRtcHideLocalIpsWithMdns', // raw host candidates: the proxies are on 127.0.0.1
      ...extraArgs,
    ],
  });
  const worker = extDir ? await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().endsWith('/background.js'), { timeout: SERVICE_WORKER_TIMEOUT_MS }) : null;
  const base = worker ? new URL('/', worker.url()).href : '';
  return { browser, base, close: async () => { await browser.close(); await rm(userDataDir, { recursive: true, force: true }); } };
}

/**
 * Firefox with the extension as a temporary add-on. Its moz-extension UUID is pinned through
 * the `extensions.webextensions.uuids` pref so the test knows the options page's URL.
 * @param {string | null} extDir  null: no extension (the player plugins' pages); `base` is then ''
 * @param {string | null} addonId  null with no extension
 * @param {{ profileDir?: string }} [o]  a profile made beforehand (e.g. whose cert9.db trusts a test CA); the caller removes it
 */
export async function launchFirefox(extDir, addonId, { profileDir } = {}) {
  const uuid = randomUUID();
  const debug = process.env.MUTP_E2E_BROWSER_LOG === '1'; // print every console message (the extension's too) to stderr
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true, dumpio: debug, timeout: LAUNCH_TIMEOUT_MS, ...(profileDir ? { userDataDir: profileDir } : {}),
    extraPrefsFirefox: {
      ...(debug ? { 'devtools.console.stdout.content': true, 'devtools.console.stdout.chrome': true } : {}),
      ...(extDir ? { 'extensions.webextensions.uuids': JSON.stringify({ [addonId]: uuid }) } : {}),
      'media.autoplay.default': 0, // allow autoplay
      'media.peerconnection.ice.obfuscate_host_addresses': false, // raw host candidates, as in Chromium
      'media.peerconnection.ice.loopback': true, // Firefox leaves out loopback ICE candidates by default; the test fleet is on 127.0.0.1
      'extensions.manifestV3.enabled': true,
    },
  });
  if (!extDir) return { browser, base: '', close: () => browser.close() };
  await browser.installExtension(extDir);
  return { browser, base: `moz-extension://${uuid}/`, close: () => browser.close() };
}

/** @param {string} file */
export async function exists(file) {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
