#!/usr/bin/env node
// Real-player bench: hls.js, dash.js and Shaka (testkit/e2e/players/) on the local test site, in
// headless Debian Chromium, with no extension and with the extension pinned to each mode, against
// the local fleet (Origo + proxies in this process, 127.0.0.1, unshaped). Options: USAGE below.
// Each sample is a fresh browser profile: a first page load, then `--loads` − 1 more loads of the
// same page, each counted as a second load (the fleet host and its connections kept, the proxies'
// caches warm, as on the second). More of them narrow the second-load medians at little cost,
// but from the third load on Chromium also has the page's scripts compiled (its code cache),
// so those pages start earlier with and without the extension: compare runs of the same K. Measured: time to first frame (navigation → first video frame) and the time each media
// segment takes as the player sees it (request → whole body), medians over the samples, and
// where that time goes, hop by hop (the extension's marks, settings.hopTiming; bench/hops.js).
// A bench, not a test: it prints numbers and counts wrong bytes, direct fetches and stalls.
// `empty-frame` (not in the default modes) is the extension with its download frame replaced by
// an empty page: what Chromium's making of any extension frame costs a page's start, before any
// fleet download. Its segments get no port, wait out the shortest stall timeout and go direct,
// so only its first media request is reported.
import os from 'node:os';
import path from 'node:path';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { testStreams } from '@mutp/testkit/e2e/helpers/streams';
import { startPlayerSite } from '@mutp/testkit/e2e/players/server';
import { wrongResponses } from '@mutp/testkit/e2e/players/check';
import { startLocalFleet } from '@mutp/testkit/e2e/helpers/fleet';
import { launchChromium, exists, CHROMIUM, BENCH_BROWSER } from '@mutp/testkit/e2e/helpers/browsers';
import { buildExtension, setOptions, EXT_DIST } from '@mutp/testkit/e2e/helpers/scenario';
import { median, pairedDifference, round } from './stats.js';
import { HOPS, hopDurations, afterFirstByte } from './hops.js';
import { THREAD_TRACE_CATEGORIES, pageThreadBusy } from './page-threads.js';
import { benchOptions, progress, onShutdown, withoutForeignSignalHandlers, runBench } from './lifecycle.js';
import { codedError } from '@mutp/common/errors';
import { MUTP_MODES } from '../src/shared/settings.js';
import { TIME_BREAKDOWN_PARTS } from '@mutp/protocol';

const STREAMS = { hls: 'hls/index.m3u8', dash: 'dash/stream.mpd', shaka: 'dash1/list.mpd' }; // one rendition per player
const CONFIGS = ['none', 'parallel-http', 'range-http', 'uncoded', 'coded']; // none: no extension
const EMPTY_FRAME = 'empty-frame';
const EMPTY_FRAME_STALL_MS = 500; // the settings' shortest stall timeout: its segments go direct soon
const EMPTY_PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n';
const LOAD_TIMEOUT_MS = 60_000; // a loaded 2-core box
const LOADS = /** @type {const} */ (['first', 'second']); // the load's bucket: index 0, or any later one
/** @param {number} i the load's index in its browser */
const loadBucket = (i) => (i === 0 ? 'first' : 'second');
const RECORDS_WAIT_MS = 5000; // the background sends records to Origo in batches
const SAME_SEGMENT_BASE = 'parallel-http'; // a MUTP segment's time after its first byte is compared with this mode's for the same segment
const RATIO_BASE_FLOOR_MS = 0.1; // a base time below the clock's resolution counts as this: no ratio divides by 0
/** The time breakdown's parts before the first byte, in order. */
const FIRST_BYTE_STEPS = TIME_BREAKDOWN_PARTS.slice(0, TIME_BREAKDOWN_PARTS.indexOf('sourceStartMs'));

const USAGE = `usage: node extension/bench/bench-players.js [--json] [--repeats 3] [--loads 2] [--n 4] [--play-seconds 3]
    [--players hls,dash,shaka] [--modes none,parallel-http,range-http,uncoded,coded,empty-frame] [--plugin [--fleet-in-page] [--fleet-start create|first-frame]] [--threads]
  --plugin: the modes run through the player plugins (@mutp/players: the player's own loader,
  no extension) instead of the extension; \`none\` is the same player without the plugin.
  --fleet-in-page: the plugins' fleet runs in the page (createFleet({worker: false})), not in its worker.
  --fleet-start: when the plugins' fleet starts (createFleet's startOn; unset: its default, as it
  is made): first-frame, at the page's first frame (the segments before it go direct).
  --threads: each load traced (Chromium's tracing: every figure a little slower), and how busy the
  page's main thread and its busiest other renderer thread (the plugins' worker) were.`;

const opt = benchOptions({
  json: { type: 'boolean', default: false },
  repeats: { type: 'string', default: '3' },
  loads: { type: 'string', default: '2' },
  n: { type: 'string', default: '4' },
  'play-seconds': { type: 'string', default: '3' },
  players: { type: 'string', default: Object.keys(STREAMS).join(',') },
  modes: { type: 'string', default: CONFIGS.join(',') },
  plugin: { type: 'boolean', default: false },
  'fleet-in-page': { type: 'boolean', default: false },
  'fleet-start': { type: 'string' },
  threads: { type: 'boolean', default: false },
}, USAGE);
const intOpt = (name, min, max) => {
  const v = Number(opt[name]);
  if (!Number.isInteger(v) || v < min || v > max) throw codedError('ERR_BAD_OPTION', `--${name} must be an integer ${min}..${max}`);
  return v;
};
/** @param {string} name @param {string[]} allowed */
const listOpt = (name, allowed) => {
  const list = opt[name].split(',').map((x) => x.trim()).filter(Boolean);
  const bad = list.filter((x) => !allowed.includes(x));
  if (list.length === 0 || bad.length) throw codedError('ERR_BAD_OPTION', `--${name}: unknown ${bad.join(', ')}`);
  return list;
};
const load1 = () => os.loadavg()[0].toFixed(2);

/**
 * One page load: navigation → first frame, and each segment's time as the player saw it; with
 * `traced`, how busy the page's threads were (null where the trace does not show them).
 * @param {import('puppeteer-core').Browser} browser @param {string} url @param {number} playSeconds @param {boolean} traced
 */
async function measureLoad(browser, url, playSeconds, traced) {
  const page = await browser.newPage();
  try {
    if (traced) await page.tracing.start({ categories: THREAD_TRACE_CATEGORIES });
    await page.goto(url);
    await page.waitForFunction((s) => document.querySelector('video').currentTime >= s || /** @type {any} */ (window).__play.errors.length > 0,
      { timeout: LOAD_TIMEOUT_MS, polling: 100 }, playSeconds);
    const st = await page.evaluate(() => /** @type {any} */ (window).__play);
    const threads = traced ? pageThreadBusy(JSON.parse(Buffer.from(await page.tracing.stop()).toString()).traceEvents ?? [], url) : null;
    if (st.errors.length) throw codedError('ERR_PLAYER', `player errors: ${st.errors.join('; ')}`);
    const first = (/** @type {string} */ k) => Math.min(...st.responses.map((/** @type {any} */ r) => r[k]));
    return { firstFrameMs: st.t0 + st.firstFrameMs, segmentMs: st.responses.map((r) => r.ms), responses: st.responses, firstRequestMs: first('atMs'), firstBodyMs: first('doneMs'), stalls: st.stalls, threads };
  } finally {
    await page.close();
  }
}

/**
 * Origo's records not seen before, once they stop arriving.
 * @param {any} origo @param {Set<string>} seen
 */
async function newRecords(origo, seen) {
  const deadline = Date.now() + RECORDS_WAIT_MS;
  let count = -1;
  for (;;) {
    const fresh = (await origo.store.listClientRecords({ limit: 1000 })).filter((/** @type {any} */ r) => !seen.has(r.id));
    if ((fresh.length === count && count > 0) || Date.now() > deadline) {
      for (const r of fresh) seen.add(r.id);
      return fresh;
    }
    count = fresh.length;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main() {
  const repeats = intOpt('repeats', 1, 50);
  const loads = intOpt('loads', 2, 20);
  const n = intOpt('n', 1, 16);
  const playSeconds = intOpt('play-seconds', 1, 30);
  const players = listOpt('players', Object.keys(STREAMS));
  const configs = listOpt('modes', opt.plugin ? CONFIGS : [...CONFIGS, EMPTY_FRAME]);
  const plugin = opt.plugin;
  if (opt['fleet-in-page'] && !plugin) throw codedError('ERR_BAD_OPTION', '--fleet-in-page is an option of --plugin');
  const inPage = opt['fleet-in-page'] ? '&worker=0' : '';
  const fleetStart = opt['fleet-start']; // a value createFleet refuses fails the page with its code
  if (fleetStart !== undefined && !plugin) throw codedError('ERR_BAD_OPTION', '--fleet-start is an option of --plugin');
  const startOn = fleetStart === undefined ? '' : `&start=${encodeURIComponent(fleetStart)}`;
  if (!(await exists(CHROMIUM))) throw codedError('ERR_NO_BROWSER', `${CHROMIUM} is missing`);
  const loadAtStart = load1();
  progress(`load at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  progress(`phase: build the ${plugin ? 'player plugins' : 'extension'}, make the streams`);
  const [mediaDir] = await Promise.all([testStreams(), plugin ? null : buildExtension()]);
  const site = await startPlayerSite({ mediaDir, plugins: plugin });
  onShutdown(() => site.close());
  const fleet = await startLocalFleet({ proxyCount: n, allowedHosts: [site.host] });
  onShutdown(() => fleet.close());
  const emptyFrameDir = configs.includes(EMPTY_FRAME) ? await emptyFrameCopy() : null;

  /** @type {Record<string, {firstFrameMs: number[], firstRequestMs: number[], firstBodyMs: number[], segmentMs: number[], segments: number, direct: number, stalls: number, wrong: string[], libraryMs: number[], modes: Record<string, number>, hops: Record<string, number>[], firstHops: Record<string, number>[], steps: Record<string, number[]>, mainMs: number[], mainPerSegmentMs: number[], otherMs: number[], afterFirst: {key: string, mode: string, ms: number}[]}>} */
  const cells = {};
  const cell = (/** @type {string} */ k) => (cells[k] ??= { firstFrameMs: [], firstRequestMs: [], firstBodyMs: [], segmentMs: [], segments: 0, direct: 0, stalls: 0, wrong: [], libraryMs: [], modes: {}, hops: [], firstHops: [], steps: {}, mainMs: [], mainPerSegmentMs: [], otherMs: [], afterFirst: [] });
  const seenRecords = new Set();
  // interleaved (repeat → player → config): drift in the machine's load hits every config alike;
  // each repeat starts one config later, so no config always runs first (after the previous
  // player's last browser closed) or always after another
  for (let r = 0; r < repeats; r++) {
    for (const player of players) {
      const plain = `${site.url}/play.html?player=${player}&src=${encodeURIComponent(`${site.url}/media/${STREAMS[player]}`)}`;
      for (const config of rotated(configs, r)) {
        progress(`repeat ${r + 1}/${repeats}: ${player}, ${config} (load ${load1()})`);
        const url = plugin && config !== 'none' ? `${plain}&plugin=1&origo=${encodeURIComponent(fleet.origoUrl)}&mode=${config}&n=${n}&hops=1${inPage}${startOn}` : plain;
        const chrome = await withoutForeignSignalHandlers(() => launchChromium(config === 'none' || plugin ? null : (config === EMPTY_FRAME && emptyFrameDir) || path.join(EXT_DIST, 'chrome'), BENCH_BROWSER));
        try {
          // with --plugin the page makes its fleet itself
          if (!plugin && config === EMPTY_FRAME) await setOptions(chrome.browser, chrome.base, { origoUrl: fleet.origo.url, mode: 'parallel-http', n, noProgressTimeoutMs: EMPTY_FRAME_STALL_MS });
          else if (!plugin && config !== 'none') await setOptions(chrome.browser, chrome.base, { origoUrl: fleet.origo.url, mode: config, n, hopTiming: true });
          /** @type {number[]} */
          const bounds = [];
          /** @type {any[][]} the page's responses of each load */
          const pageResponses = [];
          for (let l = 0; l < loads; l++) {
            const which = loadBucket(l);
            const hitsBefore = site.hits.length;
            bounds.push(Date.now());
            const m = await measureLoad(chrome.browser, url, playSeconds, opt.threads);
            const c = cell(`${player}|${config}|${which}`);
            c.firstFrameMs.push(m.firstFrameMs);
            c.firstRequestMs.push(m.firstRequestMs);
            c.firstBodyMs.push(m.firstBodyMs);
            c.segmentMs.push(...m.segmentMs);
            c.segments += m.responses.length;
            c.stalls += m.stalls;
            if (m.threads) {
              c.mainMs.push(m.threads.mainMs);
              c.mainPerSegmentMs.push(m.threads.mainMs / Math.max(1, m.responses.length));
              c.otherMs.push(m.threads.otherMs);
            }
            pageResponses.push(m.responses);
            c.direct += config === 'none' ? 0 : site.hits.slice(hitsBefore).filter((h) => h.fromBrowser && !/\.(m3u8|mpd)$/.test(h.path)).length;
            c.wrong.push(...await wrongResponses(mediaDir, m.responses));
          }
          if (config !== 'none' && config !== EMPTY_FRAME) {
            // ProxyClientLib's own time per download, and the modes the downloads ran in (and why, when not the one asked)
            /** @type {any[][]} each load's records */
            const recordsOf = bounds.map(() => []);
            for (const r of await newRecords(fleet.origo, seenRecords)) {
              const at = Date.parse(r.startedAt);
              const l = bounds.reduce((found, b, k) => (at >= b ? k : found), 0); // the load it started in
              const which = loadBucket(l);
              const c = cell(`${player}|${config}|${which}`);
              if (r.error === null) {
                recordsOf[l].push(r);
                c.libraryMs.push(r.durationMs);
                // the time to its first byte in steps, as the record's breakdown splits it
                for (const k of FIRST_BYTE_STEPS) if (typeof r.timeBreakdown?.[k] === 'number') (c.steps[k] ??= []).push(r.timeBreakdown[k]);
              }
              const key = `${r.mode}${r.modeWhy ? ` (${r.modeWhy})` : ''}${r.error ? ` ${r.error.code}` : ''}`;
              c.modes[key] = (c.modes[key] ?? 0) + 1;
            }
            for (let l = 0; l < loads; l++) {
              const c = cell(`${player}|${config}|${loadBucket(l)}`);
              const got = hopDurations(recordsOf[l], pageResponses[l]);
              c.hops.push(...got);
              c.afterFirst.push(...afterFirstByte(recordsOf[l], pageResponses[l]));
              // the load's first segment: what a first frame waits for
              const first = got.filter((d) => Number.isFinite(d.pageStart)).sort((a, b) => a.pageStart - b.pageStart)[0];
              if (first) c.firstHops.push(first);
            }
          }
        } finally {
          await chrome.close();
        }
      }
    }
  }

  const rows = [];
  for (const player of players) {
    for (const config of configs) {
      for (const which of LOADS) {
        const c = cells[`${player}|${config}|${which}`];
        const timed = config !== EMPTY_FRAME; // an empty frame's segments waited for a port that never came
        const base = timed ? cells[`${player}|none|${which}`] : null;
        const ff = timed ? median(c.firstFrameMs) : null;
        const seg = timed ? median(c.segmentMs) : null;
        rows.push({
          player, config, load: which, firstFrameMs: ff === null ? null : round(ff), segmentMs: seg === null ? null : round(seg),
          firstRequestMs: round(median(c.firstRequestMs)), firstBodyMs: round(median(c.firstBodyMs)),
          addedFirstFrameMs: base && ff !== null && config !== 'none' ? round(ff - median(base.firstFrameMs)) : null,
          // the cells fill in the same order (repeat, then load), so the i-th samples of a cell and its base share a browser's turn in the run
          pairedFirstFrameMs: base && ff !== null && config !== 'none' ? pairedDifference(c.firstFrameMs, base.firstFrameMs) : null,
          addedSegmentMs: base && seg !== null && config !== 'none' ? round(seg - median(base.segmentMs)) : null,
          libraryMs: c.libraryMs.length ? round(median(c.libraryMs)) : null, modes: c.modes,
          steps: Object.fromEntries(Object.entries(c.steps).map(([k, v]) => [k, round(median(v))])), stepSegments: c.steps.requestMs?.length ?? 0, hops: hopMedians(c.hops), hopSegments: c.hops.length, firstHops: hopMedians(c.firstHops), firstHopSamples: c.firstHops.length,
          threads: c.mainMs.length ? { mainMs: round(median(c.mainMs)), mainPerSegmentMs: round(median(c.mainPerSegmentMs)), otherMs: round(median(c.otherMs)),
            addedMainMs: base?.mainMs.length && config !== 'none' ? round(median(c.mainMs) - median(base.mainMs)) : null } : null,
          afterFirstByte: MUTP_MODES.includes(config) ? sameSegmentRatio(config, c.afterFirst, cells[`${player}|${SAME_SEGMENT_BASE}|${which}`]?.afterFirst ?? []) : null,
          samples: c.firstFrameMs.length, segments: c.segments, direct: c.direct, stalls: c.stalls, wrong: c.wrong.length, wrongFirst: c.wrong[0] ?? null,
        });
      }
    }
  }
  const browser = await (async () => {
    const ch = await withoutForeignSignalHandlers(() => launchChromium(null, BENCH_BROWSER));
    try { return await ch.browser.version(); } finally { await ch.close(); }
  })();
  return { setup: { browser, cores: os.cpus().length, loadAtStart, loadAtEnd: load1(), proxies: n, repeats, loads, playSeconds, shaping: 'none (loopback)', via: plugin ? `the player plugins (the fleet in ${inPage ? 'the page' : 'its worker'}${fleetStart === undefined ? '' : `, started on ${fleetStart}`})` : 'the extension' }, rows };
}

/**
 * The list started `by` places later, wrapping round.
 * @template T @param {T[]} list @param {number} by
 * @returns {T[]}
 */
function rotated(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** A copy of the Chrome build whose download frame is an empty page (removed when the bench ends). @returns {Promise<string>} */
async function emptyFrameCopy() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mutp-empty-frame-'));
  onShutdown(() => rm(dir, { recursive: true, force: true }));
  await cp(path.join(EXT_DIST, 'chrome'), dir, { recursive: true });
  await writeFile(path.join(dir, 'frame.html'), EMPTY_PAGE);
  return dir;
}

/**
 * A MUTP cell's segments served in its mode against the same segments served in the base mode
 * in the base mode's cell (the same player and load): medians of their times after the first
 * byte, and the median of each segment's ratio to the base's median for it.
 * @param {string} mode  the MUTP cell's mode
 * @param {{key: string, mode: string, ms: number}[]} cell  its segments
 * @param {{key: string, mode: string, ms: number}[]} base  the base cell's segments
 */
function sameSegmentRatio(mode, cell, base) {
  const mutp = cell.filter((m) => m.mode === mode); // not those sent over Parallel HTTP while WebRTC warmed
  /** @type {Map<string, number[]>} */
  const byKey = new Map();
  for (const b of base) {
    if (b.mode !== SAME_SEGMENT_BASE) continue;
    const times = byKey.get(b.key) ?? [];
    times.push(b.ms);
    byKey.set(b.key, times);
  }
  const pairs = mutp.filter((m) => byKey.has(m.key)).map((m) => ({ ms: m.ms, baseMs: median(/** @type {number[]} */ (byKey.get(m.key))) }));
  return {
    segments: mutp.length, ms: mutp.length ? round(median(mutp.map((m) => m.ms))) : null,
    pairs: pairs.length, baseMs: pairs.length ? round(median(pairs.map((p) => p.baseMs))) : null,
    ratio: pairs.length ? round(median(pairs.map((p) => p.ms / Math.max(p.baseMs, RATIO_BASE_FLOOR_MS)))) : null,
  };
}

/** Each hop's median (ms) over the matched segments, null where none. @param {Record<string, number>[]} list */
function hopMedians(list) {
  /** @type {Record<string, number | null>} */
  const out = {};
  for (const name of [...HOPS.map((h) => h[0]), 'total']) {
    const xs = list.map((d) => d[name]).filter((x) => Number.isFinite(x));
    out[name] = xs.length ? round(median(xs)) : null;
  }
  return out;
}

/** @param {any} r */
function format(r) {
  const pad = (/** @type {any} */ v, w) => String(v ?? '—').padStart(w);
  const lines = [
    `players bench (modes through ${r.setup.via}) — ${r.setup.browser}, ${r.setup.cores} cores, load (1 min) ${r.setup.loadAtStart} at start, ${r.setup.loadAtEnd} at end; ${r.setup.proxies} proxies, ${r.setup.repeats} browsers × ${r.setup.loads} loads (the first, then ${r.setup.loads - 1} second), ${r.setup.shaping}`,
    `first frame = navigation → first video frame; segment = request → whole body as the player sees it; medians; added = vs no ${r.setup.via === 'the extension' ? 'extension' : 'plugin'}, same load`,
    'library = ProxyClientLib\'s own duration per download (Origo record); direct = segments the browser fetched itself (fallbacks); stalls = times playback waited for data after its first frame (summed over the loads); modes = what the downloads ran in (why, when not the mode asked)',
    'player  mode           load    loads  first frame  added   segment  added  library  segments  direct  stalls  wrong  modes',
  ];
  for (const x of r.rows) {
    const modes = Object.entries(x.modes).map(([k, v]) => `${k}: ${v}`).join(', ');
    lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.samples, 6)} ${pad(x.firstFrameMs?.toFixed(0), 12)} ${pad(x.addedFirstFrameMs?.toFixed(0), 6)} ${pad(x.segmentMs?.toFixed(1), 9)} ${pad(x.addedSegmentMs?.toFixed(1), 6)} ${pad(x.libraryMs?.toFixed(1), 8)} ${pad(x.segments, 9)} ${pad(x.direct, 7)} ${pad(x.stalls, 7)} ${pad(x.wrong, 6)}  ${modes}`);
    if (x.wrongFirst) lines.push(`        wrong: ${x.wrongFirst}`);
  }
  if (r.rows.some((/** @type {any} */ x) => x.threads)) {
    lines.push('', `the page's threads (--threads: each load traced): busy ms from navigation to ${r.setup.playSeconds} s played, medians per load; main = the page's main thread (the player's), per segment = ÷ the load's segments; other = the renderer's busiest other thread (the plugins' worker)`);
    lines.push('player  mode           load    main  added  per segment   other');
    for (const x of r.rows.filter((/** @type {any} */ y) => y.threads)) {
      lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.threads.mainMs.toFixed(0), 6)} ${pad(x.threads.addedMainMs?.toFixed(0), 6)} ${pad(x.threads.mainPerSegmentMs.toFixed(1), 12)} ${pad(x.threads.otherMs.toFixed(0), 7)}`);
    }
  }
  if (r.rows.some((/** @type {any} */ x) => x.pairedFirstFrameMs)) {
    lines.push('', `the first frame added, paired: each page load against the load without the ${r.setup.via === 'the extension' ? 'extension' : 'plugin'} of the same repeat (the same point of the run, the machine's load drifting alike); ms, the median of the differences and their middle half (25th–75th percentile)`);
    lines.push('player  mode           load   pairs  added  middle half');
    for (const x of r.rows.filter((/** @type {any} */ y) => y.pairedFirstFrameMs)) {
      const p = x.pairedFirstFrameMs;
      lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(p.pairs, 5)} ${pad(p.median.toFixed(0), 6)} ${pad(`${p.q25.toFixed(0)}..${p.q75.toFixed(0)}`, 12)}`);
    }
  }
  lines.push('', 'the first frame\'s way (ms since navigation, medians): the first media request, the first whole media response, the first frame');
  lines.push('player  mode           load    1st request  1st response  first frame');
  for (const x of r.rows) lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.firstRequestMs.toFixed(0), 12)} ${pad(x.config === EMPTY_FRAME ? null : x.firstBodyMs.toFixed(0), 13)} ${pad(x.firstFrameMs?.toFixed(0), 12)}`);
  const names = [...HOPS.map((h) => h[0]), 'total'];
  lines.push('', 'where a segment\'s time goes (ms, median per hop over the segments matched to their record; hops do not add up to the total\'s median)');
  lines.push(`player  mode           load   segs ${names.map((nm) => nm.padStart(Math.max(8, nm.length))).join(' ')}`);
  for (const x of r.rows.filter((y) => y.hopSegments > 0)) {
    lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.hopSegments, 4)} ${names.map((nm) => pad(x.hops[nm]?.toFixed(1), Math.max(8, nm.length))).join(' ')}`);
  }
  lines.push('', 'the time to a segment\'s first byte in steps (ms, medians over the segments\' records, docs/log-record.md): connect, request (round trips), the first answering proxy\'s origin fetch and hashing, the vote');
  lines.push(`player  mode           load   segs ${FIRST_BYTE_STEPS.map((k) => k.replace(/Ms$/, '').padStart(8)).join(' ')}`);
  for (const x of r.rows.filter((y) => y.stepSegments > 0)) {
    lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.stepSegments, 4)} ${FIRST_BYTE_STEPS.map((k) => pad(x.steps[k]?.toFixed(1), 8)).join(' ')}`);
  }
  if (r.rows.some((/** @type {any} */ x) => x.afterFirstByte)) {
    lines.push('', `a segment's time after its first byte (the proxies' first answer → the whole body at the player; ms, medians), for the segments the MUTP mode served itself, against the same segments in ${SAME_SEGMENT_BASE}; ratio = median of each segment's ratio`);
    lines.push('player  mode           load   segs  after 1st byte  same segs  in base  ratio');
    for (const x of r.rows.filter((/** @type {any} */ y) => y.afterFirstByte)) {
      const a = x.afterFirstByte;
      lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(a.segments, 4)} ${pad(a.ms?.toFixed(1), 15)} ${pad(a.pairs, 10)} ${pad(a.baseMs?.toFixed(1), 8)} ${pad(a.ratio?.toFixed(2), 6)}`);
    }
  }
  lines.push('', 'the same for the first segment of each load (median over the samples): what the first frame waits for');
  for (const x of r.rows.filter((y) => y.firstHopSamples > 0)) {
    lines.push(`${x.player.padEnd(7)} ${x.config.padEnd(14)} ${x.load.padEnd(6)} ${pad(x.firstHopSamples, 4)} ${names.map((nm) => pad(x.firstHops[nm]?.toFixed(1), Math.max(8, nm.length))).join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}

await runBench(main, (result) => (opt.json ? `${JSON.stringify(result, null, 2)}\n` : format(result)));
