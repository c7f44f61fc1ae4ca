// The bench's human-readable report (the --json output holds the same numbers).

/** @param {number} x */
const ms = (x) => `${x.toFixed(1)}`.padStart(7);
const BYTES_PER_MB = 1e6; // the per-MB figures count decimal megabytes, as the byte path's MB/s

/** @param {any} r  the bench result */
export function formatReport(r) {
  const lines = [];
  lines.push(`extension bench — ${r.setup.browser}, ${r.setup.host}, ${r.setup.proxies} proxies, ${r.setup.chunkBytes} B chunks, shaping: ${r.setup.shaping}`);
  lines.push(`(${r.setup.note})`);
  lines.push('');
  lines.push('added latency per chunk (ms): extension vs the browser\'s own fetch, same ranges, interleaved');
  lines.push('  TTFB = request → first body bytes in the page, TTC = request → complete body in the page;');
  lines.push('  added = extension median − direct median; every mode streams, so TTFB < TTC when the body takes time');
  lines.push('mode            rounds  TTFB ext med/p90   TTFB direct med/p90   TTC ext med/p90    TTC direct med/p90   added TTFB  added TTC  fallbacks');
  for (const m of r.latency) {
    lines.push([
      m.mode.padEnd(15), String(m.rounds).padStart(6),
      `${ms(m.extension.firstByteMs.median)} /${ms(m.extension.firstByteMs.p90)}`,
      `   ${ms(m.direct.firstByteMs.median)} /${ms(m.direct.firstByteMs.p90)}`,
      `  ${ms(m.extension.completeMs.median)} /${ms(m.extension.completeMs.p90)}`,
      `  ${ms(m.direct.completeMs.median)} /${ms(m.direct.completeMs.p90)}`,
      `  ${ms(m.addedMs.firstByte)}`, `  ${ms(m.addedMs.complete)}`, `  ${m.fallbacks}`,
    ].join(' '));
  }
  lines.push('');
  lines.push('where the extension\'s time goes (ms, medians; library = ProxyClientLib\'s own record in Origo)');
  lines.push('mode            records  library total  first packet  proxies\' origin fetch  page TTC − library total');
  for (const m of r.latency) {
    const l = m.library;
    lines.push(`${m.mode.padEnd(15)} ${String(l.records).padStart(7)}  ${ms(l.durationMs.median)}        ${ms(l.firstPacketMs.median)}       ${ms(l.serverFetchMs.median)}               ${ms(m.plumbingMs)}`);
  }
  const profiled = r.latency.filter((/** @type {any} */ m) => m.fleetHostCpu);
  if (profiled.length) {
    lines.push('');
    lines.push('the fleet host\'s main thread over the measured rounds (Chromium\'s sampling profiler on the offscreen document)');
    for (const m of profiled) {
      const c = m.fleetHostCpu;
      const perPacket = c.packets > 0 ? `, ${((c.busyMs * 1000) / c.packets).toFixed(1)} µs per packet received (${c.packets})` : '';
      lines.push(`${m.mode}: busy ${c.busyMs.toFixed(0)} of ${c.sampledMs.toFixed(0)} ms, ${(c.busyMs / (c.bytes / BYTES_PER_MB)).toFixed(1)} ms per MB${perPacket}; GC ${c.gcMs.toFixed(0)} ms; ${c.file}`);
      for (const f of c.top) lines.push(`  ${(100 * f.ofBusy).toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(1).padStart(7)} ms  ${f.name}`);
    }
  }
  const threaded = r.latency.filter((/** @type {any} */ m) => m.browserThreads);
  if (threaded.length) lines.push('', ...browserThreadLines(threaded));
  lines.push('');
  lines.push(`frame → page byte path (MB/s of body bytes the page receives): ${r.bytePath.where}`);
  for (const b of r.bytePath.results) {
    lines.push(`  ${String(b.bufferBytes).padStart(8)} B buffers: ${b.mbPerS.median.toFixed(0)} MB/s median (max of ${b.runs} runs ${b.mbPerS.p90.toFixed(0)}), ${b.buffersPerS.median.toFixed(0)} buffers/s, ${b.buffersPerRun} per run`);
  }
  return `${lines.join('\n')}\n`;
}

/** Thread groups shown: the busiest in any mode. */
const THREAD_ROWS = 10;

/**
 * The browser's threads over each mode's measured rounds, ms of CPU per MB of the extension's
 * bytes, a column per mode (each round also fetched its range directly: that part is alike in
 * every mode, so compare the modes).
 * @param {any[]} modes  latency results with browserThreads
 */
function browserThreadLines(modes) {
  /** @type {Map<string, number>} the most any mode spent per thread group */
  const most = new Map();
  for (const m of modes) for (const t of m.browserThreads.threads) most.set(t.thread, Math.max(most.get(t.thread) ?? 0, t.ms));
  const rows = [...most].sort((a, b) => b[1] - a[1]).slice(0, THREAD_ROWS).map(([thread]) => thread);
  const perMb = (/** @type {any} */ m, /** @type {number} */ spentMs) => (spentMs / (m.browserThreads.bytes / BYTES_PER_MB)).toFixed(1).padStart(14);
  const lines = [
    'the browser\'s threads over the measured rounds (--browser-threads; /proc): CPU ms per MB of the extension\'s bytes, by process type / thread name',
    `${'thread'.padEnd(40)}${modes.map((m) => m.mode.padStart(14)).join('')}`,
  ];
  for (const thread of rows) lines.push(`${thread.padEnd(40)}${modes.map((m) => perMb(m, m.browserThreads.threads.find((/** @type {any} */ t) => t.thread === thread)?.ms ?? 0)).join('')}`);
  lines.push(`${'all threads'.padEnd(40)}${modes.map((m) => perMb(m, m.browserThreads.threads.reduce((a, /** @type {any} */ t) => a + t.ms, 0))).join('')}`);
  return lines;
}
