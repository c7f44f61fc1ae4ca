// Runs INSIDE the namespace test/e2e/deploy-tls.test.js makes (not .test.js: the root globs skip
// it). Names resolve through the namespace's /etc/hosts; Node trusts the test CA through
// NODE_EXTRA_CA_CERTS, Chromium through --ignore-certificate-errors-spki-list (that key only, not
// every certificate error), Firefox through its profile's cert9.db.
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { testVideo, VIDEO_MIME } from '@mutp/testkit/e2e/helpers/video';
import { startVideoSite } from '@mutp/testkit/e2e/site/server';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium, launchFirefox } from '@mutp/testkit/e2e/helpers/browsers';
import { quietPlayer, waitForPlayback, assertBytesExact, waitForRecords, setOptions, tabStats, openExtensionPage, REPO } from '@mutp/testkit/e2e/helpers/scenario';
import { setFirefoxOptions } from '@mutp/testkit/e2e/helpers/firefox-pages';
import { GECKO_ID } from '@mutp/extension/manifest';
import { MIXED_CONTENT_CODE } from '@mutp/extension/mixed-content';
import { WARMING } from '@mutp/extension/warm-up';
import { MUTP_MODES } from '@mutp/extension/settings';

const run = promisify(execFile);
const MODES = ['parallel-http', 'range-http', 'uncoded', 'coded'];
const PLAY_SECONDS = 3; // per mode: one or more 1 MiB chunks (4 s of video each)
const PLAY_TIMEOUT_MS = 60_000;
const NO_PROGRESS_MS = 4000;
// a MUTP mode's first chunks may all go over HTTP while the connections open (their records say
// so): the player plays on until a chunk ran in the mode, for at most this long
const IN_MODE_WAIT_MS = 30_000;
const IN_MODE_POLL_MS = 250;
const N = 2;
const HTTPS_PORT = 443;
const PLAIN_ORIGO_PORT = 8080; // docs/deploy.md's ports, as the plain-HTTP deployment had them
const PLAIN_PROXY_PORT = 8090;
const env = JSON.parse(process.env.MUTP_DEPLOY ?? 'null');

const RTC_PORT = 8090; // docs/deploy.md: the TLS proxies' WebRTC on one UDP port each, shared by every peer (--rtc-ports)
/** @param {string} name */
const at = (name, port = HTTPS_PORT) => ({ bind: env.names[name], name, port });

describe('deployment (inner run): HTTPS page, TLS fleet on TEST-NET addresses', function () {
  let video, site, tlsFleet, plainFleet, mixedFleet, buildDir, settings;

  before(async function () {
    this.timeout(240_000);
    if (!env) throw new Error('run through test/e2e/deploy-tls.test.js: it makes the namespace, the CA and MUTP_DEPLOY');
    const tls = { certFile: env.certFile, keyFile: env.keyFile };
    video = await readFile(await testVideo());
    site = await startVideoSite({ video, mime: VIDEO_MIME, host: env.names['site.test'], port: HTTPS_PORT, name: 'site.test',
      tls: { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) } });
    assert.equal(site.url, 'https://site.test');
    const allowedHosts = ['site.test']; // https, port 443; its address is private (allowPrivate), the guard unchanged
    tlsFleet = await startLocalFleet({ proxyCount: 3, allowedHosts,
      deploy: { origo: at('origo.test'), proxies: ['p1', 'p2', 'p3'].map((p) => ({ ...at(`${p}.fleet.test`), rtcPorts: String(RTC_PORT) })), tls } });
    // the plain-HTTP deployments of docs/deploy.md before TLS; Origo offers their proxies only as a lab allows it
    plainFleet = await startLocalFleet({ proxyCount: 1, allowedHosts,
      deploy: { origo: at('origo-plain.test', PLAIN_ORIGO_PORT), proxies: [at('q1.fleet.test', PLAIN_PROXY_PORT)], allowPlainHttpProxies: true } });
    mixedFleet = await startLocalFleet({ proxyCount: 1, allowedHosts,
      deploy: { origo: at('origo-mixed.test'), proxies: [at('r1.fleet.test', PLAIN_PROXY_PORT)], tls, proxyTls: false, allowPlainHttpProxies: true } });
    buildDir = await mkdtemp(path.join(os.tmpdir(), 'mutp-ext-deploy-'));
    settings = { enabled: true, origoUrl: tlsFleet.origoUrl, patterns: ['site.test/videoplayback'], mode: 'coded', n: N, noProgressTimeoutMs: NO_PROGRESS_MS };
    const config = path.join(buildDir, 'config.json');
    await writeFile(config, JSON.stringify(settings));
    await run(process.execPath, [path.join(REPO, 'extension', 'build', 'build.js'), '--no-zip', '--config', config, '--out', buildDir], { timeout: 120_000 });
  });

  after(async () => {
    for (const f of [tlsFleet, plainFleet, mixedFleet]) await f?.close();
    await site?.close();
    if (buildDir) await rm(buildDir, { recursive: true, force: true });
  });

  /**
   * Play the test video in a fresh tab of `browser` and return the chunks, their site hits and this playback's records.
   * @param {import('puppeteer-core').Browser} browser
   * @param {(page: import('puppeteer-core').Page) => Promise<void>} configure  sets the extension's options
   * @param {Awaited<ReturnType<typeof startLocalFleet>>} fleet  whose Origo gets the records
   * @param {string} [mode]  a MUTP mode: play on past PLAY_SECONDS until a chunk ran in it
   */
  async function play(browser, configure, fleet, mode) {
    const seen = new Set((await fleet.origo.store.listClientRecords({ limit: 1000 })).map((r) => r.id));
    const hitsBefore = site.mediaHits.length;
    const page = await browser.newPage();
    try {
      await configure(page);
      await page.goto(`${site.url}/`);
      await waitForPlayback(page, PLAY_SECONDS, PLAY_TIMEOUT_MS);
      if (MUTP_MODES.includes(mode)) await untilARecordIn(fleet, seen, mode);
      const st = await quietPlayer(page);
      assertBytesExact(st.chunks, video);
      const hits = site.mediaHits.slice(hitsBefore);
      const records = await waitForRecords(fleet.origo, (r) => !seen.has(r.id) && r.url.includes('/videoplayback'), st.chunks.length);
      return { chunks: st.chunks, hits, records, page };
    } catch (err) {
      await page.close();
      throw err;
    }
  }

  /**
   * Returns once the fleet's Origo has a record not in `seen` of a chunk that ran in `mode`, or after IN_MODE_WAIT_MS.
   * @param {Awaited<ReturnType<typeof startLocalFleet>>} fleet @param {Set<string>} seen @param {string} mode
   */
  async function untilARecordIn(fleet, seen, mode) {
    const deadline = Date.now() + IN_MODE_WAIT_MS;
    while (Date.now() < deadline) {
      const records = await fleet.origo.store.listClientRecords({ limit: 1000 });
      if (records.some((r) => !seen.has(r.id) && r.mode === mode)) return;
      await new Promise((r) => setTimeout(r, IN_MODE_POLL_MS));
    }
  }

  /**
   * Every chunk through the fleet in `mode`, one error-free record each. A MUTP chunk asked for
   * while the page's WebRTC connections still opened runs in Parallel HTTP and says so; at least
   * one must run in `mode` itself.
   * @param {Awaited<ReturnType<typeof play>>} r @param {string} mode
   */
  function assertThroughFleet({ chunks, hits, records }, mode) {
    assert.deepEqual(hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
    assert.equal(records.length, chunks.length, 'one Origo record per chunk');
    const warming = (/** @type {any} */ r) => r.mode === 'parallel-http' && r.modeWanted === mode && r.modeWhy === WARMING;
    // on a failure, every chunk in order with its proxies' errors: what happened to the connections before it
    const all = () => JSON.stringify([...records].sort((a, b) => String(a.startedAt).localeCompare(String(b.startedAt))).map((r) => [r.mode, r.modeWhy ?? null, r.durationMs, (r.perProxy ?? []).map((p) => p.error?.code ?? null)]));
    for (const r of records) assert.ok((r.mode === mode || warming(r)) && r.error === null && r.n === N, `${JSON.stringify({ mode: r.mode, modeWhy: r.modeWhy, n: r.n, error: r.error })} of ${all()}`);
    assert.ok(records.some((r) => r.mode === mode), `no chunk ran in ${mode}: ${JSON.stringify(records.map((r) => [r.mode, r.modeWhy]))}`);
    console.log(`      ${mode}: ${chunks.length} chunks byte-exact over HTTPS, N=${N}`);
  }

  describe('Chromium', function () {
    let chrome;
    before(async () => {
      chrome = await launchChromium(path.join(buildDir, 'chrome'), { extraArgs: [`--ignore-certificate-errors-spki-list=${env.spki.join(',')}`] });
    });
    after(async () => { await chrome?.close(); });

    for (const mode of MODES) {
      it(`plays through the HTTPS fleet in ${mode}, byte-exact, one record each`, async () => {
        const r = await play(chrome.browser, () => setOptions(chrome.browser, chrome.base, { ...settings, mode }), tlsFleet, mode);
        await r.page.close();
        assertThroughFleet(r, mode);
      });
    }

    // The fleet client runs in the extension's offscreen document, a top-level extension page: the
    // HTTPS page's mixed-content rule does not reach it, so a plain-HTTP fleet serves (in clear text).
    const notices = {
      plain: /^Origo http:\/\/origo-plain\.test:8080 is plain HTTP: Chrome allows it, but tickets/,
      mixed: /^1 proxy is plain HTTP \(http:\/\/r1\.fleet\.test:8090\): Chrome allows it, but tickets/,
    };
    for (const [label, fleet, notice] of /** @type {const} */ ([
      ['plain-HTTP Origo and proxies', () => plainFleet, notices.plain], ['HTTPS Origo, plain-HTTP proxies', () => mixedFleet, notices.mixed]])) {
      it(`${label}: every chunk through the fleet (not ${MIXED_CONTENT_CODE}: the offscreen document is not under the page's rule), byte-exact, one record each; the options page warns`, async () => {
        const f = fleet();
        const r = await play(chrome.browser, () => setOptions(chrome.browser, chrome.base, { ...settings, origoUrl: f.origoUrl, mode: 'parallel-http' }), f);
        try {
          assert.deepEqual(r.hits.filter((h) => h.fromBrowser).map((h) => h.range), [], 'chunks the browser fetched directly');
          for (const c of r.chunks) assert.ok(r.hits.some((h) => !h.fromBrowser && h.range === `${c.start}-${c.end}`), `no proxy fetched ${c.start}-${c.end}`);
          assert.equal(r.records.length, r.chunks.length, 'one record per chunk');
          for (const rec of r.records) assert.ok(rec.error === null && rec.mode === 'parallel-http', JSON.stringify({ mode: rec.mode, error: rec.error }));
          const { stats } = await tabStats(chrome.browser, chrome.base, `${site.url}/`);
          assert.equal(stats.fallbacks.filter((x) => x.reason.startsWith(MIXED_CONTENT_CODE)).length, 0, JSON.stringify(stats.fallbacks));
          // the options page says they are plain HTTP, in its separate notice
          const options = await chrome.browser.newPage();
          await openExtensionPage(options, chrome.base, 'options.html');
          await options.waitForFunction(() => !document.getElementById('insecureNotice').hidden, { timeout: 10_000, polling: 100 });
          assert.match(await options.$eval('#insecureNotice', (el) => el.textContent), notice);
          await options.close();
          console.log(`      ${label}: ${r.chunks.length} chunks through the plain-HTTP fleet`);
        } finally {
          await r.page.close();
        }
      });
    }
  });

  describe('Firefox ESR', function () {
    let ff;
    before(async () => {
      ff = await launchFirefox(path.join(buildDir, 'firefox'), GECKO_ID, { profileDir: env.ffProfile });
    });
    after(async () => { await ff?.close(); });

    for (const mode of MODES) {
      it(`plays through the HTTPS fleet in ${mode}, byte-exact, one record each`, async () => {
        const configure = async (/** @type {import('puppeteer-core').Page} */ page) => {
          await page.goto(`${site.url}/plain.html`);
          await setFirefoxOptions(page, ff.base, { ...settings, mode });
        };
        const r = await play(ff.browser, configure, tlsFleet, mode);
        await r.page.close();
        assertThroughFleet(r, mode);
      });
    }
  });
});
