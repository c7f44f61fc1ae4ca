// The play-and-check steps of the player plugins' browser tests (@mutp/players, no extension),
// shared by Chromium (test/e2e/player-plugins.test.js, demo-page.test.js) and Firefox
// (test/e2e/firefox-netns/players.inner.js): a real player on the player site's play.html
// through a fleet, the same with the whole fleet dying mid-play, and `npm start`'s demo page
// played to its end.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { wrongResponses } from './check.js';
import { waitForRecords, REPO } from '../helpers/scenario.js';
import { freePort } from '../../origo-process.js';
import { startLocalFleet } from '../helpers/fleet.js';

/** The streams each player plays (testkit/e2e/helpers/streams.js) */
export const PLUGIN_PLAYERS = [
  { player: 'hls', src: 'hls/index.m3u8' },
  { player: 'shaka', src: 'dash1/list.mpd' },
  { player: 'dash', src: 'dash/stream.mpd' },
];
/** hls.js in its progressive (streaming) mode: play.html's query for it, and its name in the output */
export const HLS_PROGRESSIVE = { ...PLUGIN_PLAYERS[0], query: { progressive: '1' }, label: 'hls progressive' };
export const MIN_FLEET_SHARE = 0.95;
const PLAY_TIMEOUT_MS = 60_000; // a loaded 2-core box
const MIN_RESPONSES = 3;
const CLOSED_PAGES = 6; // checkRecordsSentOnClose's: with keep-alive POSTs, Firefox lost every record of 4 in 110 closed pages
const MAX_CLOSES_WITHOUT_PAGEHIDE = 2; // …and from 1 in ~100 not even play.js's own pagehide beacon reached the site
const RECORDS_WAIT_MS = 15_000; // a page posts its records once a second; Origo stores them within ms
const RECORDS_POLL_MS = 200;
const DEMO_STREAM_DIR = path.join(REPO, 'demo', 'stream');
const DEMO_STREAM_SEGMENTS = 12; // demo/stream: 24 s in 2 s segments, and its init section
const DEMO_PLAY_TIMEOUT_MS = 120_000; // 24 s of video, on a loaded 2-core box
const DEMO_SHA_TIMEOUT_MS = 10_000; // the page hashes each segment after it noted it
const FIREFOX_NETWORK_FAILURE = /^Error: Cross-Origin Request Blocked: .*\(Reason: CORS request did not succeed\)/;

/**
 * @typedef {{path: string, range: string | null, fromBrowser: boolean, bytes: number}} SiteHit
 * @typedef {{url: string, range: string | null, bytes: number, sha: string, type: string | null, contentRange: string | null}} PlayResponse
 * @typedef {{errors: string[], responses: PlayResponse[], records: string[], firstFrameMs: number | null, currentTime: number, fleetStats: any, fleetRunsIn?: string, hits: SiteHit[], direct: SiteHit[]}} PluginPlay
 */

/**
 * One load of play.html?plugin=1 played for `seconds`: its state, the site's requests meanwhile
 * (`hits`) and the segments among them the browser fetched itself (`direct`).
 * @param {import('puppeteer-core').Browser} browser
 * @param {{hits: SiteHit[], url: string}} site  startPlayerSite's
 * @param {{player: string, src: string, origo: string, mode: string, seconds: number, n?: number, timeoutMs?: number,
 *   during?: () => Promise<void>, duringAfter?: number, query?: Record<string, string>}} o
 *   during: runs once the player has its first `duringAfter` segments; query: more of play.html's parameters
 * @param {(st: PluginPlay, page: import('puppeteer-core').Page) => Promise<void>} [beforeClose]  runs on the play's state while the page is still open
 * @returns {Promise<PluginPlay>}
 */
export async function playPluginPage(browser, site, { player, src, origo, mode, seconds, n = 4, timeoutMs = PLAY_TIMEOUT_MS, during, duringAfter = MIN_RESPONSES, query = {} }, beforeClose) {
  const hitsBefore = site.hits.length;
  return onPage(browser, async (page, errors) => {
    const q = new URLSearchParams({ player, src: `${site.url}/media/${src}`, plugin: '1', origo, mode, n: String(n), ...query });
    await page.goto(`${site.url}/play.html?${q}`);
    const reach = (/** @type {number} */ s) => page.waitForFunction((t) => document.querySelector('video').currentTime >= t || /** @type {any} */ (window).__play.errors.length > 0,
      { timeout: timeoutMs, polling: 250 }, s).catch(() => {});
    if (during) {
      await page.waitForFunction((k) => /** @type {any} */ (window).__play?.responses.length >= k, { timeout: timeoutMs, polling: 20 }, duringAfter);
      await during();
    }
    await reach(seconds);
    const st = await page.evaluate(() => ({ .../** @type {any} */ (window).__play, currentTime: document.querySelector('video').currentTime, fleetStats: /** @type {any} */ (window).__fleet?.stats() }));
    const hits = site.hits.slice(hitsBefore);
    const direct = hits.filter((h) => h.fromBrowser && !/\.(m3u8|mpd)$/.test(h.path));
    const play = { ...st, errors: [...st.errors, ...errors], hits, direct };
    await beforeClose?.(play, page);
    return play;
  });
}

/**
 * playPluginPage through `fleet` in `mode`, then checkPluginPlay; the play, for more checks.
 * @param {import('puppeteer-core').Browser} browser
 * @param {{hits: SiteHit[], url: string}} site  startPlayerSite's
 * @param {{player: string, src: string, mode: string, seconds: number, mediaDir: string,
 *   fleet: {origoUrl: string, origo: {store: {listClientRecords: (p?: object) => Promise<object[]>}}},
 *   query?: Record<string, string>, label?: string, runsIn?: 'worker' | 'page'}} o  label: the player's name in the output;
 *   runsIn: where the fleet must have run (its worker, or the page)
 * @returns {Promise<PluginPlay>}
 */
export async function playAndCheckPlugin(browser, site, { player, src, mode, seconds, mediaDir, fleet, query, label = player, runsIn }) {
  /** @type {object[]} */
  let records = [];
  // the page's records reach Origo while it is open (a batch a second): the check does not race the
  // page's close, where the last batch goes with the page's keepalive POST or waits for its next load
  const st = await playPluginPage(browser, site, { player, src, origo: fleet.origoUrl, mode, seconds, query }, async (play, page) => {
    records = await fleetRecords(fleet.origo, play, page);
  });
  await checkPluginPlay(st, records, { mediaDir, player: label, mode, seconds });
  if (runsIn) assert.equal(st.fleetRunsIn, runsIn, `the fleet ran in the ${st.fleetRunsIn ?? '(not said)'}`);
  return st;
}

/**
 * A play through a fleet made with startOn: 'first-frame' (?start=first-frame): the segments the
 * player asked for before its first frame went direct, each for ERR_FLEET_STARTING, and the later
 * ones through the fleet in `mode`, from its worker; no error, every response byte-exact. Prints
 * a line about it.
 * @param {import('puppeteer-core').Browser} browser
 * @param {{hits: SiteHit[], url: string}} site  startPlayerSite's
 * @param {{player: string, src: string, mode: string, seconds: number, mediaDir: string, fleet: {origoUrl: string}}} o
 */
export async function playFleetStartedAtFirstFrame(browser, site, { player, src, mode, seconds, mediaDir, fleet }) {
  const st = await playPluginPage(browser, site, { player, src, origo: fleet.origoUrl, mode, seconds, query: { start: 'first-frame' } });
  await checkPlayedExact(st, mediaDir, seconds);
  console.log(`      ${player} ${mode}, fleet from the first frame: ${st.fleetStats.fleet} segments through the fleet, ${st.direct.length} direct: ${JSON.stringify(st.fleetStats.directBy)}`);
  assert.ok(st.direct.length >= 1, 'no segment went direct before the first frame');
  assert.deepEqual(Object.keys(st.fleetStats.directBy), ['ERR_FLEET_STARTING'], 'why segments went direct');
  assert.ok(st.fleetStats.fleet >= 2, `the fleet served ${st.fleetStats.fleet} segments after the first frame`);
  assert.ok((st.fleetStats.fleetBytes[mode] ?? 0) > 0, `no segment ran in ${mode}: ${JSON.stringify(st.fleetStats.fleetBytes)}`);
  assert.equal(st.fleetRunsIn, 'worker', `the fleet ran in the ${st.fleetRunsIn ?? '(not said)'}`);
}

/**
 * A play through a fleet of its own (Coded MUTP) that dies, Origo and every proxy, once the player
 * has its first `duringAfter` segments. The player must play on from its own loader for
 * `afterSeconds` more, with no error, every response byte-exact, ≥ 3 segments direct after ≥ 2
 * through the fleet. Prints a line about it.
 * @param {import('puppeteer-core').Browser} browser
 * @param {{hits: SiteHit[], url: string, host: string}} site  startPlayerSite's
 * @param {{player: string, src: string, mediaDir: string, seconds: number, afterSeconds: number, duringAfter: number,
 *   rtcBindAddress?: string}} o  seconds: played before and about when the fleet dies; rtcBindAddress: the proxies' (Firefox's namespace)
 */
export async function playThroughFleetDeath(browser, site, { player, src, mediaDir, seconds, afterSeconds, duringAfter, rtcBindAddress }) {
  const doomed = await startLocalFleet({ proxyCount: 4, allowedHosts: [site.host], rtcBindAddress });
  let died = 0;
  try {
    const st = await playPluginPage(browser, site, {
      player, src, origo: doomed.origoUrl, mode: 'coded', seconds: seconds + afterSeconds, duringAfter,
      during: async () => {
        await doomed.close();
        died = performance.now();
      },
    });
    assert.ok(died > 0, 'the fleet never died');
    await checkPlayedExact(st, mediaDir, seconds + afterSeconds);
    assert.ok(st.direct.length >= 3, `the player's own loader fetched ${st.direct.length} segments after the fleet died`);
    assert.ok(st.fleetStats.fleet >= 2, `the fleet served ${st.fleetStats.fleet} segments before it died`);
    console.log(`      ${player}: ${st.fleetStats.fleet} segments through the fleet, then ${st.direct.length} direct: ${JSON.stringify(st.fleetStats.directBy)}`);
  } finally {
    await doomed.close();
  }
}

/**
 * The error-free Origo records this play's fleet made of its responses (not an earlier play's of the
 * same segments), once there are as many as MIN_FLEET_SHARE of them (or RECORDS_WAIT_MS passed).
 * @param {{store: {listClientRecords: (p?: object) => Promise<object[]>}}} origo @param {PluginPlay} st
 * @param {import('puppeteer-core').Page} page  the play's, still open
 */
async function fleetRecords(origo, st, page) {
  const urls = new Set(st.responses.map((r) => r.url));
  const want = Math.ceil(st.responses.length * MIN_FLEET_SHARE);
  const deadline = Date.now() + RECORDS_WAIT_MS;
  for (;;) {
    // read anew each time: a segment's record comes to the page just after the segment itself
    const ours = new Set(await page.evaluate(() => /** @type {string[]} */ (/** @type {any} */ (window).__play.records)));
    const records = (await origo.store.listClientRecords({ limit: 1000 })).filter((/** @type {any} */ r) => ours.has(r.id) && urls.has(r.url) && r.error === null && r.segment === 'player');
    if (records.length >= want || Date.now() > deadline) return records;
    await new Promise((r) => setTimeout(r, RECORDS_POLL_MS));
  }
}

/**
 * Plays in `mode` whose pages are closed while their fleets hold records not sent to Origo yet
 * (they wait up to a second to ride one POST), CLOSED_PAGES of them one after another: Origo must
 * get every record each page made, with no other page of the site loaded meanwhile (the next load
 * would send what was kept). A browser loses a page's last requests now and then, so one close
 * would seldom show it. A close where the browser ran none of the page's pagehide handlers (the
 * site never got play.js's own beacon) shows nothing of the fleet, and is played again, at most
 * MAX_CLOSES_WITHOUT_PAGEHIDE times. Prints a line per page.
 * @param {import('puppeteer-core').Browser} browser
 * @param {{url: string, pagehides: Set<string>}} site  startPlayerSite's
 * @param {{player: string, src: string, mode: string, fleet: {origoUrl: string, origo: {store: {listClientRecords: (p?: object) => Promise<object[]>}}}}} o
 */
export async function checkRecordsSentOnClose(browser, site, { player, src, mode, fleet }) {
  let withoutPagehide = 0;
  let i = 0; // pages closed that count
  while (i < CLOSED_PAGES) {
    const page = await browser.newPage();
    let made = [];
    let queuedAtClose = 0;
    let pageId = '';
    try {
      const q = new URLSearchParams({ player, src: `${site.url}/media/${src}`, plugin: '1', origo: fleet.origoUrl, mode, n: '4' });
      await page.goto(`${site.url}/play.html?${q}`);
      // read in the same moment as the condition: a POST may take the queue just after
      const ready = await page.waitForFunction((k) => {
        const w = /** @type {any} */ (window);
        const queued = w.__fleet.stats().records.queued;
        return w.__play.records.length >= k && queued > 0 && { made: [...w.__play.records], queuedAtClose: queued, pageId: w.__play.pageId };
      }, { timeout: PLAY_TIMEOUT_MS, polling: 20 }, MIN_RESPONSES);
      ({ made, queuedAtClose, pageId } = /** @type {{made: string[], queuedAtClose: number, pageId: string}} */ (await ready.jsonValue()));
    } finally {
      await page.close();
    }
    const ids = new Set(made);
    const stored = new Set((await waitForRecords(fleet.origo, (r) => ids.has(r.id), made.length)).map((r) => /** @type {{id: string}} */ (r).id));
    console.log(`      ${player} ${mode}, page ${i + 1}: closed with ${queuedAtClose} record(s) queued (earlier pages' too); of its own ${made.length}, Origo has ${stored.size}`);
    assert.ok(queuedAtClose > 0, 'the page closed with no record queued');
    if (stored.size < made.length && !site.pagehides.has(pageId) && withoutPagehide < MAX_CLOSES_WITHOUT_PAGEHIDE) {
      withoutPagehide += 1;
      console.log('        the browser ran none of its pagehide handlers (no beacon of play.js\'s own): played again');
      continue;
    }
    assert.deepEqual(made.filter((id) => !stored.has(id)), [], `records page ${i + 1} made that Origo never got`);
    i += 1;
  }
}

/**
 * A play through the fleet in `mode` as it should be: no errors, `seconds` played, every response
 * byte-exact with the origin's head, ≥ 95% of segments through the fleet, some bytes in `mode`
 * itself, and an Origo record for each segment through the fleet. Prints a line about it.
 * @param {PluginPlay} st  playPluginPage's
 * @param {object[]} records  fleetRecords'
 * @param {{mediaDir: string, player: string, mode: string, seconds: number}} o
 */
async function checkPluginPlay(st, records, { mediaDir, player, mode, seconds }) {
  await checkPlayedExact(st, mediaDir, seconds);
  assert.ok(st.responses.length >= MIN_RESPONSES, `only ${st.responses.length} segment responses`);
  const share = 1 - st.direct.length / st.responses.length;
  console.log(`      ${player} ${mode}: ${st.responses.length} segments, ${st.direct.length} direct, first frame ${Math.round(st.firstFrameMs)} ms, fleet in the ${st.fleetRunsIn}, ${JSON.stringify(st.fleetStats.directBy)}`);
  assert.ok(share >= MIN_FLEET_SHARE, `${st.direct.length} of ${st.responses.length} segments fetched directly: ${JSON.stringify(st.fleetStats.fallbacks.slice(0, 3))}`);
  // the MUTP modes start over HTTP while the warm-up opens the WebRTC connections (the extension's rule); then they run in their mode
  assert.ok((st.fleetStats.fleetBytes[mode] ?? 0) > 0, `no segment ran in ${mode}: ${JSON.stringify(st.fleetStats.fleetBytes)}`);
  assert.ok(records.length >= Math.ceil(st.responses.length * MIN_FLEET_SHARE), `${records.length} Origo records for ${st.responses.length} segments`);
}

/**
 * A play with no error that reached `seconds`, every response byte-exact with the files.
 * @param {PluginPlay} st  playPluginPage's @param {string} mediaDir @param {number} seconds
 */
async function checkPlayedExact(st, mediaDir, seconds) {
  assert.deepEqual(st.errors, [], 'the player saw errors');
  assert.ok(st.currentTime >= seconds, `played only ${st.currentTime} s`);
  assert.deepEqual(await wrongResponses(mediaDir, st.responses), [], 'responses differ from the files');
}

/**
 * `npm start` (scripts/start.js) on a free Origo port and any demo port, until it says it is up.
 * @param {{args?: string[], env?: NodeJS.ProcessEnv}} [o]  args: start.js's (e.g. --rtc-bind ADDR)
 * @returns {Promise<{playerUrl: string, stdout: string, close: () => Promise<void>}>} playerUrl: the printed `demo player:` URL
 */
export async function startDemoSystem({ args = [], env = {} } = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(REPO, 'scripts/start.js'), ...args], {
    cwd: REPO, env: { ...process.env, ...env, ORIGO_PORT: String(port), DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  try {
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { stdout += d; if (stdout.includes('Ctrl-C stops everything')) resolve(undefined); });
      child.once('exit', () => reject(new Error(`start.js exited early: ${stderr}`)));
    });
    const playerUrl = /demo player: +(\S+)/.exec(stdout)?.[1];
    assert.ok(playerUrl, `npm start names the demo page:\n${stdout}`);
    return { playerUrl, stdout, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The demo page (`npm start`'s /player/) in `mode` with N = 4, played to its end: no errors, every
 * segment byte-exact with demo/stream's files, ≥ 95% through the fleet, and the page's counters
 * say so. Prints a line about it.
 * @param {import('puppeteer-core').Browser} browser
 * @param {string} playerUrl
 * @param {string} mode
 * @param {{timeoutMs?: number}} [o]
 */
export function playDemoPage(browser, playerUrl, mode, { timeoutMs = DEMO_PLAY_TIMEOUT_MS } = {}) {
  return onPage(browser, async (page, pageErrors) => {
    /** @type {string[]} the page's own requests its origin refused (a newcomer's console shows each) */
    const refused = [];
    const site = new URL(playerUrl).origin;
    page.on('response', (r) => { if (r.status() >= 400 && r.url().startsWith(site)) refused.push(`${r.status()} ${r.url()}`); });
    await page.goto(`${playerUrl}?mode=${mode}&n=4`);
    await page.waitForFunction(() => /** @type {any} */ (window).__demo?.ended || /** @type {any} */ (window).__demo?.errors.length > 0, { timeout: timeoutMs, polling: 500 });
    await page.waitForFunction(() => /** @type {any} */ (window).__demo.segments.every((s) => s.sha !== null), { timeout: DEMO_SHA_TIMEOUT_MS });
    const st = await page.evaluate(() => {
      const d = /** @type {any} */ (window).__demo;
      return { errors: d.errors, ended: d.ended, segments: d.segments, firstFrameMs: d.firstFrameMs, stats: d.fleet.stats(), shown: document.getElementById('fleet-segments')?.textContent, byMode: document.getElementById('by-mode')?.textContent };
    });
    assert.deepEqual([...st.errors, ...pageErrors], [], 'the page saw errors');
    assert.deepEqual(refused, [], 'every request of the page to its origin answered');
    assert.equal(st.ended, true);
    const wrong = [];
    for (const s of st.segments) {
      const file = await readFile(path.join(DEMO_STREAM_DIR, path.basename(new URL(s.url).pathname)));
      if (s.sha !== createHash('sha256').update(file).digest('hex')) wrong.push(`${s.url} (${s.via}, ${s.bytes} bytes)`);
    }
    assert.deepEqual(wrong, [], 'segments differ from the stream\'s files');
    assert.ok(st.segments.length >= DEMO_STREAM_SEGMENTS + 1, `${st.segments.length} segments for a stream of ${DEMO_STREAM_SEGMENTS} and its init`);
    const viaFleet = st.segments.filter((s) => s.via === 'fleet').length;
    console.log(`      ${mode}: ${viaFleet} of ${st.segments.length} segments through the fleet, first frame ${Math.round(st.firstFrameMs)} ms; by mode ${st.byMode}`);
    assert.ok(viaFleet / st.segments.length >= MIN_FLEET_SHARE, `${viaFleet} of ${st.segments.length} through the fleet: ${JSON.stringify(st.stats.fallbacks.slice(0, 3))}`);
    assert.equal(st.shown, String(viaFleet), 'the page shows the fleet\'s segment count');
    assert.match(String(st.byMode), new RegExp(mode), 'the page shows the bytes of the mode asked for');
    return st;
  });
}

/**
 * `fn` on a new page, closed afterwards; `errors` collects the page's uncaught errors meanwhile.
 * @template T
 * @param {import('puppeteer-core').Browser} browser
 * @param {(page: import('puppeteer-core').Page, errors: string[]) => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function onPage(browser, fn) {
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => {
    // Firefox reports a cross-origin request that failed in the network (a proxy or Origo that
    // died: connection refused) as this script error; the page's code saw a rejected fetch and
    // handled it. A CORS refusal by a server has another reason and still counts.
    if (!FIREFOX_NETWORK_FAILURE.test(String(e))) errors.push(String(e));
  });
  try {
    return await fn(page, errors);
  } finally {
    await page.close();
  }
}
