// Output formats: JSON lines, CSV, and a human table.

/** Columns of the CSV and the table, in order. */
export const COLUMNS = [
  'mode', 'n', 'rates', 'delayMs', 'loss', 'sizeBytes', 'window', 'generation', 'feedbackEvery',
  'goodputBps', 'throughputBps', 'normalizedGoodput', 'goodputOfSumRates', 'timeToFirstByteMs',
  'duplicates', 'durationMs', 'runs', 'failed',
];

/** @param {Record<string, any>} s */
function flat(s) {
  return {
    ...s,
    window: s.params?.window ?? '',
    generation: s.params?.generationSize ?? '',
    feedbackEvery: s.params?.feedbackEvery ?? '',
  };
}

/** @param {any} v */
function cell(v) {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? Math.round(x) : x)).join(' ');
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(4);
  return String(v);
}

/** @param {string} text */
function csvQuote(text) {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader() {
  return COLUMNS.join(',');
}

/** @param {Record<string, any>} summary */
export function csvRow(summary) {
  const f = flat(summary);
  return COLUMNS.map((c) => csvQuote(cell(f[c]))).join(',');
}

/** @param {Record<string, any>} summary */
export function jsonLine(summary) {
  return JSON.stringify(summary);
}

/** @param {Record<string, any>} s */
export function tableRow(s) {
  const kib = (/** @type {number} */ v) => (Number.isFinite(v) ? (v / 1024).toFixed(0).padStart(6) : '     -');
  return [
    s.mode.padEnd(13),
    String(s.n).padStart(2),
    `${kib(s.goodputBps)} KiB/s good`,
    `${kib(s.throughputBps)} KiB/s thru`,
    `norm ${Number.isFinite(s.normalizedGoodput) ? s.normalizedGoodput.toFixed(3) : '-'}`,
    `${Number.isFinite(s.goodputOfSumRates) ? (100 * s.goodputOfSumRates).toFixed(1).padStart(5) : '    -'}% of sum`,
    `ttfb ${s.timeToFirstByteMs === null ? '-' : s.timeToFirstByteMs.toFixed(0)} ms`,
    `dup ${s.duplicates}`,
    `runs ${s.runs}${s.failed ? ` FAILED ${s.failed}` : ''}`,
  ].join('  ');
}
