// The fleet host's CPU profile for the bench: Chromium's sampling profiler (CDP Profiler domain)
// on the extension's offscreen document, the document whose main thread runs every download's
// ProxyClientLib and its data channels; and a summary of it (self time by function). The
// profiler samples that thread's stack: time in JS, in the browser's code it calls
// ("(program)"), in the garbage collector, or idle.
import { writeFile } from 'node:fs/promises';
import { codedError } from '@mutp/common/errors';

/** Sampling interval (µs): 100 µs resolves one packet's work (~10-50 µs) in aggregate without slowing the thread much. */
export const SAMPLING_INTERVAL_US = 100;
/** How long to wait for the offscreen document to exist (ms): the extension makes it at its first download. */
const FIND_TIMEOUT_MS = 10_000;
/** Pseudo-frames the profiler names for time outside any JS function. */
const IDLE = '(idle)';
const GC = '(garbage collector)';

/**
 * @param {import('puppeteer-core').Browser} browser
 * @param {string} base  the extension's base URL (chrome-extension://<id>/)
 * @param {string} file  where stop() writes the profile (Chrome DevTools opens it)
 */
export async function profileFleetHost(browser, base, file) {
  const root = base.endsWith('/') ? base : `${base}/`;
  let target;
  try {
    target = await browser.waitForTarget((t) => t.url().startsWith(root) && t.url().includes('offscreen'), { timeout: FIND_TIMEOUT_MS });
  } catch {
    const seen = browser.targets().map((t) => `${t.type()} ${t.url()}`).join(', ');
    throw codedError('ERR_BENCH_SETUP', `no offscreen document of ${base} after ${FIND_TIMEOUT_MS} ms: nothing to profile (targets: ${seen})`);
  }
  const cdp = await target.createCDPSession();
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
  return {
    start: () => cdp.send('Profiler.start'),
    /** Stops, writes the profile to `file` and gives it back. */
    async stop() {
      const { profile } = await cdp.send('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      await cdp.detach().catch(() => {});
      return profile;
    },
  };
}

/**
 * Self time per function over the profile (ms), the busiest first, with the thread's busy time
 * (everything but idle) and its GC share.
 * @param {{ nodes: { id: number, callFrame: { functionName: string, url: string, lineNumber: number } }[], samples?: number[], timeDeltas?: number[] }} profile
 * @param {{ top?: number }} [o]
 */
export function summarizeProfile(profile, { top = 12 } = {}) {
  const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  /** @type {Map<string, number>} self µs per function */
  const self = new Map();
  let totalUs = 0;
  // timeDeltas[i] is the time before sample i: that span is charged to the sample that ends it
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const us = Math.max(0, deltas[i] ?? 0);
    totalUs += us;
    const f = frameOf.get(samples[i]);
    const name = !f ? '(unknown)' : f.url ? `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}` : f.functionName;
    self.set(name, (self.get(name) ?? 0) + us);
  }
  const idleUs = self.get(IDLE) ?? 0;
  const busyUs = totalUs - idleUs;
  const frames = [...self.entries()].filter(([name]) => name !== IDLE).sort((a, b) => b[1] - a[1]);
  return {
    sampledMs: totalUs / 1000,
    busyMs: busyUs / 1000,
    gcMs: (self.get(GC) ?? 0) / 1000,
    top: frames.slice(0, top).map(([name, us]) => ({ name, selfMs: us / 1000, ofBusy: busyUs > 0 ? us / busyUs : 0 })),
  };
}

/** The file's name within the extension or the page, without the scheme and host. @param {string} url */
function shortUrl(url) {
  try {
    return new URL(url).pathname.replace(/^\//, '');
  } catch {
    return url;
  }
}
