// The cost bench's printed output, pure: the per-mode table of medians with their ratios to
// Range-split HTTP, the targets with met/missed, the machine's load; and one progress line per download.
import { MB, MODE_NAMES } from './summary.js';

/** @param {number | null} v @param {number} digits */
const num = (v, digits) => (v == null || !Number.isFinite(v) ? '–' : v.toFixed(digits));
/** @param {number | null} r */
const times = (r) => (r == null || !Number.isFinite(r) ? '' : `×${r.toFixed(2)}`);
/** @param {string} s @param {number} w */
const left = (s, w) => s.padEnd(w);
/** @param {string} s @param {number} w */
const right = (s, w) => s.padStart(w);

const COLUMNS = /** @type {const} */ ([
  ['mode', 18], ['ok', 5], ['goodput MB/s', 16], ['normalized', 11], ['proxies ms/MB', 16], ['client ms/MB', 16], ['in call', 8], ['Origo', 7], ['origin', 7],
]);

/**
 * @param {ReturnType<typeof import('./summary.js').summarize>} summary
 * @param {{sizeBytes: number, proxies: number, runs: number, warmups?: number, trailMs: number, rtcBuild: string, proxyBuilds: string[], cores: number,
 *   where?: string, targets?: boolean}} meta  where: what the processes ran on (127.0.0.1); targets: false leaves out the
 *   loopback targets' verdicts
 */
export function formatReport(summary, meta) {
  const lines = [];
  lines.push(`bench:cost: a ${num(meta.sizeBytes / 2 ** 20, 0)} MiB object (${num(meta.sizeBytes / MB, 2)} MB), ${meta.proxies} proxies, Origo, the origin and the client on ${meta.where ?? '127.0.0.1'}`);
  lines.push(`  proxies' WebRTC build: ${meta.rtcBuild} (${meta.proxyBuilds.join(' | ') || 'not in the proxy logs'})`);
  const warmups = meta.warmups ?? 1;
  lines.push(`  ${meta.runs} round(s) of every mode after ${warmups === 1 ? 'a warm-up download' : `${warmups} warm-up downloads`} per mode (cached object, kept connections); medians over the verified downloads`);
  lines.push(`  1 MB = 10^6 bytes. CPU: every thread of each process (/proc/<pid>/task/*/schedstat), from before each download to ${meta.trailMs} ms after`);
  lines.push('  the client\'s answer and log post (the proxies\' records included); the client\'s sha256 check of the body left out.');
  lines.push(`  ms/MB: CPU milliseconds per MB delivered; proxies: the sum of all ${meta.proxies}; "in call": the client's own count over the download call alone.`);
  lines.push(`  ×: the ratio to ${MODE_NAMES[summary.baseline] ?? summary.baseline}'s median in this run`);
  lines.push('');
  lines.push(COLUMNS.map(([h, w], i) => (i === 0 ? left(h, w) : right(h, w))).join(' '));
  for (const m of summary.perMode) {
    const cells = [
      left(m.name, COLUMNS[0][1]),
      right(`${m.verified}/${m.downloads}`, COLUMNS[1][1]),
      right(`${num(m.median.goodputMBps, 1)} ${times(m.ratio.goodput)}`.trim(), COLUMNS[2][1]),
      right(num(m.median.normalizedGoodput, 3), COLUMNS[3][1]),
      right(`${num(m.median.proxyCpuMsPerMB, 2)} ${times(m.ratio.proxyCpu)}`.trim(), COLUMNS[4][1]),
      right(`${num(m.median.clientCpuMsPerMB, 2)} ${times(m.ratio.clientCpu)}`.trim(), COLUMNS[5][1]),
      right(num(m.median.clientCallCpuMsPerMB, 2), COLUMNS[6][1]),
      right(num(m.median.origoCpuMsPerMB, 2), COLUMNS[7][1]),
      right(num(m.median.originCpuMsPerMB, 2), COLUMNS[8][1]),
    ];
    lines.push(cells.join(' '));
  }
  for (const m of summary.perMode) {
    for (const x of m.excluded) lines.push(`  excluded: ${m.name}, round ${x.round}: ${x.why}`);
  }
  lines.push('');
  if (meta.targets === false) lines.push('targets: on loopback only (here the links bound the goodput)');
  else lines.push('targets (Coded MUTP against Range-split HTTP):');
  for (const t of meta.targets === false ? [] : summary.targets) {
    const measured = t.id === 'goodput'
      ? `${num(t.measured.goodputMBps ?? null, 1)} MB/s at ${num(t.measured.normalizedGoodput ?? null, 3)}`
      : times(t.measured.ratio ?? null) || '–';
    lines.push(`  ${left(t.text, 58)} ${left(measured, 22)} ${t.verdict}`);
  }
  lines.push('');
  const { loadavg1, busyCores } = summary.machine;
  lines.push(`machine: ${meta.cores} cores; 1-min load average before the downloads: median ${num(loadavg1.median, 2)}, max ${num(loadavg1.max, 2)};` +
    ` busy cores during them: median ${num(busyCores.median, 2)}, max ${num(busyCores.max, 2)} (other work on the machine shows here)`);
  return lines.join('\n');
}

/**
 * One line per download for stderr while the bench runs.
 * @param {import('./summary.js').CostRow} row @param {number} done @param {number} total
 */
export function formatProgress(row, done, total) {
  const what = row.phase === 'warmup' ? 'warm-up' : `round ${row.round}`;
  const head = `[${done}/${total}] ${what} ${left(row.mode, 13)}`;
  if (!row.verified) return `${head} EXCLUDED (${row.excluded})`;
  return `${head} ${num(row.goodputMBps, 1)} MB/s, normalized ${num(row.normalizedGoodput, 3)}, proxies ${num(row.proxyCpuMsPerMB, 2)} ms/MB,` +
    ` client ${num(row.clientCpuMsPerMB, 2)} ms/MB, load ${num(row.loadavg1, 2)}, busy cores ${num(row.busyCores, 2)}`;
}
