// A log record's packet log in columns, the form it travels to Origo in (POST /api/logs/v2): one
// entry per received packet, `[tMs, sourceIndex, useful, dofAfter]`, as four columns that JSON
// and a compressor take far smaller than the array of arrays. An 8 MiB coded download's log (7,656
// entries) is 141 KB of JSON as arrays, and its record 49.6 KB gzipped at zlib's fastest level; as
// columns the record gzips to 13.8 KB, within the 10-segment window a connection idle through the
// download starts again with, where the arrays took three round trips. docs/log-record.md.
import { RECORD_TIME_STEP_MS } from './received-log.js';

const STEPS_PER_MS = Math.round(1 / RECORD_TIME_STEP_MS);
/** One character per source index in `source`: base 32, so indices 0..31 (a download's proxies are fewer). */
const SOURCE_DIGITS = '0123456789abcdefghijklmnopqrstuv';
const SOURCE_INDEX = new Map([...SOURCE_DIGITS].map((c, i) => [c, i]));

/**
 * @typedef {object} PacketLogColumns
 * @property {number[]} dt      time steps (of RECORD_TIME_STEP_MS) since the entry before; the first since 0
 * @property {string} source    one base-32 digit per entry
 * @property {string} useful    '0' or '1' per entry
 * @property {(number | null)[]} ddof  dofAfter less the last non-null dofAfter before it (0 before the first); null: none
 */

/**
 * The columns of a packet log, or null when it has entries these cannot say exactly (a time off
 * the RECORD_TIME_STEP_MS grid or negative, a source index over 31): such a log travels as it is.
 * @param {Array<[number, number, number, number | null]>} log
 * @returns {PacketLogColumns | null}
 */
export function packetLogColumns(log) {
  const dt = new Array(log.length);
  const ddof = new Array(log.length);
  let source = '';
  let useful = '';
  let lastStep = 0;
  let lastDof = 0;
  for (let k = 0; k < log.length; k++) {
    const [t, s, u, dof] = log[k];
    const step = Math.round(t * STEPS_PER_MS);
    if (!(step >= 0) || step / STEPS_PER_MS !== t) return null;
    if (!Number.isInteger(s) || s < 0 || s >= SOURCE_DIGITS.length || (u !== 0 && u !== 1)) return null;
    if (dof !== null && !(Number.isInteger(dof) && dof >= 0)) return null;
    dt[k] = step - lastStep;
    lastStep = step;
    source += SOURCE_DIGITS[s];
    useful += u;
    ddof[k] = dof === null ? null : dof - lastDof;
    if (dof !== null) lastDof = dof;
  }
  return { dt, source, useful, ddof };
}

/**
 * The packet log that columns say, checked as it is read: the same entries packetLogColumns was
 * given. Throws an Error whose message says what is wrong (not columns, columns of unequal
 * lengths, more than maxEntries entries, a value out of range).
 * @param {unknown} columns  from the network
 * @param {number} maxEntries
 * @returns {Array<[number, number, number, number | null]>}
 */
export function packetLogFromColumns(columns, maxEntries) {
  const c = /** @type {Record<string, unknown>} */ (columns);
  if (!c || typeof c !== 'object' || Array.isArray(c)) throw new Error('packetLogColumns must be an object');
  const { dt, source, useful, ddof } = c;
  if (!Array.isArray(dt) || !Array.isArray(ddof) || typeof source !== 'string' || typeof useful !== 'string') {
    throw new Error('packetLogColumns needs arrays dt and ddof and strings source and useful');
  }
  const n = dt.length;
  if (n > maxEntries) throw new Error(`packetLogColumns has ${n} entries; at most ${maxEntries}`);
  if (source.length !== n || useful.length !== n || ddof.length !== n) throw new Error('packetLogColumns: its columns differ in length');
  /** @type {Array<[number, number, number, number | null]>} */
  const log = new Array(n);
  let step = 0;
  let dof = 0;
  for (let k = 0; k < n; k++) {
    const d = dt[k];
    if (!Number.isSafeInteger(d) || d < 0) throw new Error(`packetLogColumns.dt[${k}] is not a whole number of steps ≥ 0`);
    step += d;
    if (!Number.isSafeInteger(step)) throw new Error(`packetLogColumns.dt[${k}] takes the time past what a number holds exactly`);
    const s = SOURCE_INDEX.get(source[k]);
    if (s === undefined) throw new Error(`packetLogColumns.source[${k}] is not a base-32 digit`);
    const u = useful[k] === '1' ? 1 : useful[k] === '0' ? 0 : -1;
    if (u < 0) throw new Error(`packetLogColumns.useful[${k}] is not 0 or 1`);
    const e = ddof[k];
    let after = null;
    if (e !== null) {
      if (!Number.isSafeInteger(e) || dof + /** @type {number} */ (e) < 0) throw new Error(`packetLogColumns.ddof[${k}] does not give a dofAfter ≥ 0`);
      dof += /** @type {number} */ (e);
      after = dof;
    }
    log[k] = [step / STEPS_PER_MS, s, u, after];
  }
  return log;
}
