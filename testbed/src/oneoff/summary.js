// One-off downloads (a new `mutp get` process each) summed up per mode and object size: the
// median wall clock of the whole process, its rate, and that rate's share of the proxies' links,
// against the project's targets for one-offs on the testbed. Pure: the bench passes in what it
// measured.

import { median } from '../stats.js';

const KIB = 1024;

/**
 * The share of the links a one-off of this size (KiB) should reach, wall clock of the whole
 * process: a 1.5 MiB segment at half of them, 8 MiB at 0.85. Other sizes have none.
 */
export const ONE_OFF_TARGET_SHARES = new Map([[1536, 0.5], [8192, 0.85]]);

/**
 * @typedef {{ mode: string, kib: number, wallMs: number, ok: boolean, firstPacketMs: number | null }} OneOffRun
 *   ok: the download succeeded and its bytes were exact; firstPacketMs: from its record
 * @typedef {{ mode: string, kib: number, runs: number, failed: number, medianMs: number | null, kibPerS: number | null,
 *   share: number | null, firstPacketMs: number | null, target: number | null, met: boolean | null }} OneOffRow
 */

/** The median, null for none. @param {number[]} xs @returns {number | null} */
const medianOrNull = (xs) => (xs.length === 0 ? null : median(xs));

/**
 * A row per mode and size, in the order first run; failed runs are counted, not in the medians.
 * @param {OneOffRun[]} runs @param {number} linksBps  the proxies' upload rates summed, bytes/s
 * @returns {OneOffRow[]}
 */
export function summarizeOneOffs(runs, linksBps) {
  /** @type {Map<string, OneOffRun[]>} */
  const cells = new Map();
  for (const r of runs) {
    const key = `${r.mode} ${r.kib}`;
    cells.set(key, [...(cells.get(key) ?? []), r]);
  }
  return [...cells.values()].map((cell) => {
    const { mode, kib } = cell[0];
    const ok = cell.filter((r) => r.ok);
    const medianMs = medianOrNull(ok.map((r) => r.wallMs));
    const kibPerS = medianMs === null ? null : kib / (medianMs / 1000);
    const share = kibPerS === null ? null : (kibPerS * KIB) / linksBps;
    const target = ONE_OFF_TARGET_SHARES.get(kib) ?? null;
    return {
      mode, kib, runs: cell.length, failed: cell.length - ok.length, medianMs, kibPerS, share,
      firstPacketMs: medianOrNull(ok.map((r) => r.firstPacketMs).filter((x) => x !== null)),
      target, met: target === null || share === null ? null : share >= target,
    };
  });
}

/** The rows as a table. @param {OneOffRow[]} rows @returns {string} */
export function formatOneOffs(rows) {
  const head = 'mode          size KiB  runs  failed  median ms  KiB/s  share of links  first packet ms  target';
  const lines = rows.map((r) => [
    r.mode.padEnd(12), String(r.kib).padStart(9), String(r.runs).padStart(5), String(r.failed).padStart(7),
    (r.medianMs === null ? '-' : r.medianMs.toFixed(0)).padStart(10), (r.kibPerS === null ? '-' : r.kibPerS.toFixed(0)).padStart(6),
    (r.share === null ? '-' : r.share.toFixed(3)).padStart(15), (r.firstPacketMs === null ? '-' : r.firstPacketMs.toFixed(0)).padStart(16),
    r.target === null ? '  (none)' : `  ≥ ${r.target}: ${r.met ? 'met' : 'missed'}`,
  ].join(' '));
  return [head, ...lines].join('\n');
}
