// The admin dashboard in real headless Chromium (puppeteer-core + Debian's chromium): log in, see a
// proxy appear live, see a new download row within 2 s, open its timeline, build a boxplot grouped
// by N, export CSV. Screenshots: test-artifacts/screenshots/dashboard-*.png (docs/dashboard.md).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { computeTimeBreakdown, TIME_BREAKDOWN_PARTS } from '@mutp/protocol';
import { syntheticRecord } from '../src/seed/synthetic-records.js';
import { connectGoodProxy, postLogs, proxyStatus, startTestOrigo } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-artifacts', 'screenshots');
const PASSWORD = 'browser-test-password';
/** Records seeded before the browser opens: ~50 per (mode, N) box, so the under-100 warning shows. */
const SEEDED = 600;
/** The acceptance bound: a new record's row is on the page within 2 s of its arrival. */
const LIVE_ROW_DEADLINE_MS = 2000;
/** Waits for things that only depend on the machine's speed (page loads on a loaded 2-core box). */
const PAGE_WAIT_MS = 15_000;

/** quantile_cont: linear interpolation between order statistics. @param {number[]} sorted @param {number} q */
const quantile = (sorted, q) => {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
};

describe('origo dashboard in headless Chromium', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  /** @type {import('puppeteer-core').Browser} */
  let browser;
  /** @type {import('puppeteer-core').Page} */
  let page;
  /** @type {string} */
  let profile;
  /** @type {any[]} */
  let seeded;
  /** @type {string[]} what the pages asked for and Origo did not have (a browser's console shows each) */
  const notFound = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env.CI === 'true') throw new Error(`chromium is required in CI and missing at ${CHROMIUM}`);
      console.warn(`    (skipped: no chromium at ${CHROMIUM}; set CHROMIUM_PATH)`);
      return this.skip();
    }
    await mkdir(SCREENSHOTS, { recursive: true });
    origo = await startTestOrigo({ adminPassword: PASSWORD });
    seeded = Array.from({ length: SEEDED }, (_, i) => syntheticRecord(i, { seed: 42 }));
    await origo.store.insertClientRecords(seeded);
    profile = await mkdtemp(join(tmpdir(), 'origo-chromium-'));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM, headless: true, userDataDir: profile,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage();
    page.on('response', (r) => { if (r.status() === 404) notFound.push(r.url()); });
    await page.setViewport({ width: 1440, height: 900 });
    page.setDefaultTimeout(PAGE_WAIT_MS);
  });

  after(async () => {
    await browser?.close();
    await origo?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  /** @param {string} name */
  const shot = (name) => page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true });

  it('sends an unauthenticated visitor to the login page and logs in', async () => {
    await page.goto(`${origo.url}/admin/`);
    await page.waitForSelector('#login');
    assert.equal(new URL(page.url()).pathname, '/admin/login');
    await page.type('#password', 'wrong password');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => document.getElementById('message').textContent.includes('wrong password'));
    await shot('login');
    await page.$eval('#password', (el) => { /** @type {HTMLInputElement} */ (el).value = ''; });
    await page.type('#password', PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    assert.equal(new URL(page.url()).pathname, '/admin/');
    await page.waitForFunction(() => document.getElementById('live').textContent === 'live');
  });

  it('fleet: a proxy appears live, with its status, and is marked when it disconnects', async () => {
    const socket = await connectGoodProxy(origo.url, 'aws-frankfurt-1');
    try {
      socket.emit('status', proxyStatus('aws-frankfurt-1', { location: { lat: 50.11, lon: 8.68 }, uploadRateBps: 1792 * 1024, activeSessions: 3, bytesSent: 5_000_000 }));
      await page.waitForSelector('tr[data-proxy="aws-frankfurt-1"].up');
      const cells = await page.$$eval('tr[data-proxy="aws-frankfurt-1"] td', (tds) => tds.map((td) => td.textContent.trim()));
      assert.equal(cells[1], 'connected');
      assert.equal(cells[2], '50.11, 8.68');
      assert.equal(cells[3], '1,792 KB/s');
      assert.equal(cells[5], '3');
      const other = await connectGoodProxy(origo.url, 'aws-paris-2');
      other.emit('status', proxyStatus('aws-paris-2', { uploadRateBps: 896 * 1024 }));
      await page.waitForSelector('tr[data-proxy="aws-paris-2"].up');
      other.close();
      await page.waitForSelector('tr[data-proxy="aws-paris-2"].down');
      assert.equal(await page.$eval('tr[data-proxy="aws-paris-2"] .badge', (el) => el.textContent), 'disconnected');
      assert.match(await page.$eval('#summary', (el) => el.textContent), /1 connected, 1 disconnected/);
      await shot('fleet');
    } finally {
      socket.close();
    }
  });

  /** @type {any} */
  let live;
  it('downloads: a new record shows up as a row within 2 s of arriving', async () => {
    await page.goto(`${origo.url}/admin/downloads`);
    await page.waitForFunction(() => document.querySelectorAll('#downloads tbody tr[data-id]').length === 50);
    assert.match(await page.$eval('#range', (el) => el.textContent), new RegExp(`1–50 of ${SEEDED}`));
    await page.waitForFunction(() => document.getElementById('live').textContent === 'live');
    for (let i = 0; !live; i++) {
      const r = syntheticRecord(10_000 + i, { seed: 43, withPacketLog: true });
      if (r.packetLog) live = { ...r, startedAt: new Date().toISOString(), timeBreakdown: computeTimeBreakdown(r) };
    }
    const arrived = postLogs(origo.url, [live]);
    await page.waitForSelector(`tr[data-id="${live.id}"]`, { timeout: LIVE_ROW_DEADLINE_MS });
    assert.equal((await arrived).status, 200);
    const first = await page.$eval('#downloads tbody tr', (tr) => ({ id: tr.getAttribute('data-id'), cells: [...tr.children].map((td) => td.textContent.trim()) }));
    assert.equal(first.id, live.id, 'the new row is on top');
    assert.equal(first.cells[1], live.mode);
    assert.equal(first.cells[2], String(live.n));
    assert.equal(first.cells[11], (live.netBytes / live.grossBytes).toFixed(3));
    await page.waitForFunction((n) => document.getElementById('range').textContent.includes(`of ${n}`), {}, (SEEDED + 1).toLocaleString('en-US'));
    await shot('downloads');
  });

  it('download detail: the packet timeline, coloured by proxy, with duplicates and ACKs', async () => {
    await Promise.all([page.waitForNavigation(), page.click(`tr[data-id="${live.id}"] a`)]);
    await page.waitForFunction(() => {
      const chart = /** @type {any} */ (globalThis).echarts?.getInstanceByDom(document.getElementById('timeline'));
      return chart && chart.getOption().series.length > 0;
    });
    const plotted = await page.evaluate(() => {
      const option = /** @type {any} */ (globalThis).echarts.getInstanceByDom(document.getElementById('timeline')).getOption();
      return option.series.map((/** @type {any} */ s) => ({ name: s.name, points: s.data.length, marks: s.markLine?.data?.length ?? 0, color: s.itemStyle?.color }));
    });
    const useful = live.packetLog.filter((/** @type {number[]} */ p) => p[2] === 1).length;
    const dups = live.packetLog.length - useful;
    const sources = plotted.filter((/** @type {any} */ s) => /^#\d+ /.test(s.name) && !s.name.endsWith('duplicate'));
    assert.equal(sources.length, live.n, 'one series per source proxy');
    assert.equal(new Set(sources.map((/** @type {any} */ s) => s.color)).size, live.n, 'each proxy has its own colour');
    assert.equal(sources.reduce((a, /** @type {any} */ s) => a + s.points, 0), useful);
    assert.equal(plotted.filter((/** @type {any} */ s) => s.name.endsWith('duplicate')).reduce((a, /** @type {any} */ s) => a + s.points, 0), dups);
    assert.equal(plotted.find((/** @type {any} */ s) => s.name === 'feedback (ACK)').marks, live.feedbackLog.length);
    const cards = await page.$$eval('.card', (els) => Object.fromEntries(els.map((el) => [el.querySelector('.k').textContent, el.querySelector('.v').textContent])));
    assert.equal(cards.packets, live.packetLog.length.toLocaleString('en-US'));
    assert.equal(cards.duplicates, dups.toLocaleString('en-US'));
    assert.equal(await page.$$eval('#per-proxy tbody tr', (trs) => trs.length), live.n);
    // where the time went: one stacked segment per part the record has, each its value
    const segments = await page.evaluate(() => /** @type {any} */ (globalThis).echarts.getInstanceByDom(document.getElementById('breakdown')).getOption().series
      .map((/** @type {any} */ s) => ({ name: s.name, value: s.data[0], stack: s.stack })));
    const expected = TIME_BREAKDOWN_PARTS.filter((k) => typeof live.timeBreakdown[k] === 'number').map((k) => live.timeBreakdown[k]);
    assert.deepEqual(segments.map((/** @type {any} */ s) => s.value), expected);
    assert.ok(segments.every((/** @type {any} */ s) => s.stack === 'time'));
    assert.equal(segments.length, 7, 'packet-log breakdown: every part but the in-flight hold, which the client does not know');
    await shot('download');
  });

  it('analysis: grouped boxplot by N, counts per box and the under-100 warning; quartiles match the data', async () => {
    await page.goto(`${origo.url}/admin/analysis`);
    await page.select('select[name=groupBy]', 'n');
    await page.select('select[name=metric]', 'normalizedGoodput');
    await page.click('#show');
    await page.waitForFunction(() => document.querySelectorAll('#counts tbody tr').length === 4 && /records in/.test(document.getElementById('status').textContent));
    const all = [...seeded, live].filter((r) => r.error === null);
    const counts = await page.$$eval('#counts tbody tr', (trs) => trs.map((tr) => ({
      group: tr.getAttribute('data-group'), cells: Object.fromEntries([...tr.querySelectorAll('td[data-mode]')].map((td) => [td.getAttribute('data-mode'), td.textContent])),
    })));
    assert.deepEqual(counts.map((c) => c.group), ['1', '2', '4', '6']);
    for (const { group, cells } of counts) {
      for (const mode of ['parallel-http', 'uncoded', 'coded']) {
        const expected = all.filter((r) => r.mode === mode && r.n === Number(group)).length;
        assert.equal(cells[mode], `${expected} ⚠ < 100`, `${mode} N=${group}`);
      }
    }
    assert.match(await page.$eval('#status', (el) => el.textContent), /12 boxes have fewer than 100 records/);
    const option = await page.evaluate(() => {
      const o = /** @type {any} */ (globalThis).echarts.getInstanceByDom(document.getElementById('boxplot')).getOption();
      return { categories: o.xAxis[0].data, series: o.series.map((/** @type {any} */ s) => ({ type: s.type, name: s.name, data: s.data })) };
    });
    assert.deepEqual(option.categories, ['N=1', 'N=2', 'N=4', 'N=6']);
    const boxes = option.series.filter((s) => s.type === 'boxplot');
    assert.deepEqual(boxes.map((s) => s.name), ['parallel-http', 'uncoded', 'coded']);
    const coded2 = all.filter((r) => r.mode === 'coded' && r.n === 2).map((r) => r.netBytes / r.grossBytes).sort((a, b) => a - b);
    const [low, q1, median, q3, high] = boxes[2].data[1].value;
    for (const [got, want] of [[q1, quantile(coded2, 0.25)], [median, quantile(coded2, 0.5)], [q3, quantile(coded2, 0.75)]]) assert.ok(Math.abs(got - want) < 1e-9, `${got} vs ${want}`);
    const fence = 1.5 * (q3 - q1);
    assert.equal(low, coded2.find((v) => v >= q1 - fence), 'lower whisker: the smallest value within 1.5 IQR');
    assert.equal(high, [...coded2].reverse().find((v) => v <= q3 + fence), 'upper whisker: the largest value within 1.5 IQR');
    await shot('analysis');
  });

  it('export: the CSV link returns the filtered records', async () => {
    await page.select('select[name=groupBy]', 'n');
    await page.$eval('input[name=n]', (el) => { /** @type {HTMLInputElement} */ (el).value = '4'; });
    await page.click('#show');
    await page.waitForFunction(() => document.getElementById('export-csv').getAttribute('href').includes('n=4'));
    const href = await page.$eval('#export-csv', (el) => el.getAttribute('href'));
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href);
    const lines = csv.trim().split('\n');
    assert.match(lines[0], /^id,client_id,started_at,received_at,mode,n,/);
    const ids = new Set(lines.slice(1).map((l) => l.split(',')[0]));
    const modes = ['parallel-http', 'uncoded', 'coded', 'range-http'];
    const expected = [...seeded, live].filter((r) => r.n === 4 && modes.includes(r.mode)).map((r) => r.id);
    assert.deepEqual([...ids].sort(), expected.sort());
  });

  it('every page found all it asked for (no 404, no favicon request)', () => {
    assert.deepEqual(notFound, []);
  });
});
