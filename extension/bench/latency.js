// Phase 1: added latency per chunk. For one fixed mode, K ~1 MiB ranges are fetched from the
// page through the extension and the same K ranges with the browser's own fetch, interleaved
// round by round so the load of a shared box hits both alike. Every body is checked byte-exact;
// fetches the extension quietly served direct (its fallback) are counted, since they would
// make the extension look as fast as direct.
import { createHash } from 'node:crypto';
import { setOptions, waitForRecords } from '@mutp/testkit/e2e/helpers/scenario';
import { installTimedFetch, timedFetch } from './page-timing.js';
import { summary, median, round } from './stats.js';
import { codedError } from '@mutp/common/errors';
import { RTC_CONNECT_WAIT_MAX_MS } from '../src/frame/warm-up.js';
import { profileFleetHost, summarizeProfile } from './cpu-profile.js';
import { threadCpuSpent } from './browser-threads.js';

/**
 * After the warm-up rounds, this long (ms) for the fleet host's WebRTC connects: they start once
 * the startup gate opens (RTC_CONNECT_AFTER_DOWNLOADS downloads ended, or RTC_CONNECT_WAIT_MAX_MS)
 * and took 250-550 ms from Chromium to a local proxy; until then a MUTP download runs in Parallel HTTP.
 */
const RTC_SETTLE_MS = RTC_CONNECT_WAIT_MAX_MS + 1000;

/**
 * @param {object} o
 * @param {import('puppeteer-core').Browser} o.browser
 * @param {string} o.base          extension base URL
 * @param {{url: string, host: string, mediaHits: {path: string, fromBrowser: boolean}[]}} o.site
 * @param {any} o.origo            the fleet's Origo (its store holds the client records)
 * @param {Buffer} o.video         what the site serves
 * @param {string} o.mode
 * @param {number} o.n             proxies per download
 * @param {number} o.k             measured rounds
 * @param {number} o.warmup        unmeasured rounds first (frame insertion, WebRTC connects, WebAssembly load);
 *   they may run in Parallel HTTP while the connections open (the startup gate)
 * @param {number} o.chunkBytes
 * @param {(line: string) => void} o.progress
 * @param {string} [o.profileFile]  write the fleet host's CPU profile over the measured rounds here (needs warmup ≥ 1:
 *   the first download makes the offscreen document)
 * @param {() => Promise<Map<string, number>>} [o.threadsOf]  the browser's CPU ms per thread so far
 *   (browser-threads.js): what each spent over the measured rounds is reported
 */
export async function measureModeLatency({ browser, base, site, origo, video, mode, n, k, warmup, chunkBytes, progress, profileFile, threadsOf }) {
  await setOptions(browser, base, {
    enabled: true, origoUrl: origo.url, patterns: [`${site.host}/videoplayback`], detect: 'off', mode, n,
  });
  // a fresh page per mode: its download frame starts with the new settings
  const page = await browser.newPage();
  try {
    await page.goto(`${site.url}/plain.html`);
    const setup = await page.evaluate(installTimedFetch);
    if (!setup.fetchWrapped || !setup.bareNative) {
      throw codedError('ERR_BENCH_SETUP', `comparison would be void: page fetch wrapped=${setup.fetchWrapped}, bare frame fetch native=${setup.bareNative}`);
    }
    const tag = `bench-${mode}-${Date.now()}`;
    const ext = { firstByteMs: /** @type {number[]} */ ([]), completeMs: /** @type {number[]} */ ([]) };
    const direct = { firstByteMs: /** @type {number[]} */ ([]), completeMs: /** @type {number[]} */ ([]) };
    const rangeCount = Math.floor(video.length / chunkBytes);
    /** @type {Awaited<ReturnType<typeof profileFleetHost>> | null} */
    let profiler = null;
    /** @type {Map<string, number> | null} the threads' CPU when the measured rounds began */
    let threadsBefore = null;
    for (let i = 0; i < warmup + k; i++) {
      if (i === warmup && profileFile) {
        profiler = await profileFleetHost(browser, base, profileFile);
        await profiler.start();
      }
      if (i === warmup && threadsOf) threadsBefore = await threadsOf();
      const start = (i % rangeCount) * chunkBytes;
      const end = start + chunkBytes - 1;
      const want = createHash('sha256').update(video.subarray(start, end + 1)).digest('hex');
      const url = (via) => `${site.url}/videoplayback?id=${tag}&via=${via}&i=${i}&mime=video/mp4&range=${start}-${end}`;
      const order = i % 2 === 0 ? [false, true] : [true, false]; // alternate who goes first
      for (const native of order) {
        const r = await page.evaluate(timedFetch, url(native ? 'direct' : 'ext'), native);
        if (r.status !== 200 || r.bytes !== chunkBytes || r.sha !== want) {
          throw codedError('ERR_BENCH_BYTES', `${mode} ${native ? 'direct' : 'extension'} fetch of ${start}-${end}: status ${r.status}, ${r.bytes} B, bytes ${r.sha === want ? 'equal' : 'differ'}`);
        }
        if (i < warmup) continue;
        const into = native ? direct : ext;
        into.firstByteMs.push(r.firstByteMs);
        into.completeMs.push(r.completeMs);
      }
      if (i === warmup - 1 || (i >= warmup && (i - warmup + 1) % 5 === 0)) progress(`  ${mode}: ${i < warmup ? 'warm-up done' : `${i - warmup + 1}/${k} rounds`}`);
      if (i === warmup - 1) await new Promise((r) => setTimeout(r, RTC_SETTLE_MS));
    }
    const threads = threadsBefore && threadsOf ? threadCpuSpent(threadsBefore, await threadsOf()) : null;
    const profile = profiler ? summarizeProfile(await profiler.stop()) : null;
    const extHits = site.mediaHits.filter((h) => h.path.includes(`id=${tag}&via=ext`));
    const fallbacks = new Set(extHits.filter((h) => h.fromBrowser).map((h) => /&i=(\d+)/.exec(h.path)?.[1])).size;
    // Origo's records prove the mode setting took effect (one record per extension download)
    const records = await waitForRecords(origo, (r) => r.url.includes(`id=${tag}&via=ext`), warmup + k);
    // ProxyClientLib's own view of the measured downloads: what is left of the page's time is
    // the extension's plumbing (page ↔ frame messages, the wrapper's stream)
    const measured = records.filter((r) => Number(/&i=(\d+)/.exec(r.url)?.[1]) >= warmup);
    const recordModes = [...new Set(measured.map((r) => `${r.mode}${r.modeWhy ? ` (${r.modeWhy})` : ''}`))];
    if (measured.some((r) => r.mode !== mode)) {
      throw codedError('ERR_MODE_NOT_APPLIED', `asked for ${mode}, Origo recorded ${recordModes.join(', ')} for the measured rounds`);
    }
    const field = (/** @type {string} */ f) => measured.map((r) => r[f]).filter((v) => typeof v === 'number');
    return {
      mode, n, rounds: k, chunkBytes, fallbacks, records: records.length,
      library: { records: measured.length, durationMs: summary(field('durationMs')), firstPacketMs: summary(field('firstPacketMs')), serverFetchMs: summary(field('serverFetchMs')) },
      plumbingMs: round(median(ext.completeMs) - median(field('durationMs'))),
      // the fleet host's main thread over the measured rounds: its busy time per MB and per packet received
      fleetHostCpu: profile && { ...profile, file: profileFile, bytes: k * chunkBytes, packets: field('packets').reduce((a, b) => a + b, 0) },
      // every browser thread over the measured rounds: the extension's downloads and the page's direct fetches of the same ranges
      browserThreads: threads && { threads, bytes: k * chunkBytes },
      extension: { firstByteMs: summary(ext.firstByteMs), completeMs: summary(ext.completeMs) },
      direct: { firstByteMs: summary(direct.firstByteMs), completeMs: summary(direct.completeMs) },
      addedMs: {
        firstByte: round(median(ext.firstByteMs) - median(direct.firstByteMs)),
        complete: round(median(ext.completeMs) - median(direct.completeMs)),
      },
    };
  } finally {
    await page.close().catch(() => {});
  }
}
