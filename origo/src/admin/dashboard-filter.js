// Parses the dashboard's query string (filters, grouping, metric, page) at the edge. Everything
// that reaches SQL is a finite number, an integer, or a member of a fixed list: nothing else
// passes, so the SQL builder may inline these values (DuckDB's COPY takes no parameters).
import { CLIENT_MODES } from '../schema/common.js';
import { codedError } from '@mutp/common/errors';

/** Metrics the analysis page offers → client_records column (paper eq. 2). */
export const METRICS = {
  throughput: 'throughput_bps',
  goodput: 'goodput_bps',
  normalizedGoodput: 'normalized_goodput',
};

/** X-axis groupings of the analysis page (paper FIGURES 11–15 and feedbackEvery). */
export const GROUPINGS = ['n', 'nRate', 'chunk', 'g', 'w', 'loss', 'feedbackEvery'];

/** Downloads page size, rows: one screen of the table. */
export const DEFAULT_PAGE_ROWS = 50;
/** Largest page the downloads API returns, rows: bulk reads go through the export. */
export const MAX_PAGE_ROWS = 500;
/** Largest offset accepted, rows: above the paper's 1.3M records with room to spare. */
const MAX_OFFSET_ROWS = 1e9;
/** Most values in one list filter (e.g. n=1,2,4,6): a UI sends a handful. */
const MAX_LIST_VALUES = 64;
/** Protocol parameters are int32 in the store. */
const INT32_MAX = 2 ** 31 - 1;

/**
 * @typedef {object} DashboardFilter
 * @property {number | null} fromMs        started_at >= (epoch ms)
 * @property {number | null} toMs          started_at <  (epoch ms)
 * @property {number | null} minBytes      object_bytes >=
 * @property {number | null} maxBytes      object_bytes <=
 * @property {string[]} modes              empty = all
 * @property {number[]} n
 * @property {number[]} window
 * @property {number[]} generationSize
 * @property {number[]} feedbackEvery
 * @property {'exclude' | 'include' | 'only'} errors  failed downloads
 */

const bad = (/** @type {string} */ message) => codedError('ERR_BAD_QUERY', message);

/** A query value must be one string (Express gives arrays for repeated keys). */
function single(/** @type {unknown} */ v, /** @type {string} */ name) {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string') throw bad(`${name} must be given once`);
  return v;
}

/** @param {unknown} v @param {string} name @param {number} max */
function nonNegativeNumber(v, name, max = Number.MAX_SAFE_INTEGER) {
  const s = single(v, name);
  if (s === null) return null;
  if (!/^\d+(\.\d+)?$/.test(s) || Number(s) > max) throw bad(`${name} must be a number in [0, ${max}]`);
  return Number(s);
}

/** A date (YYYY-MM-DD, UTC midnight) or an ISO date-time; → epoch ms. @param {unknown} v @param {string} name */
function time(v, name) {
  const s = single(v, name);
  if (s === null) return null;
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(s) ? Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s) : NaN;
  if (!Number.isFinite(ms)) throw bad(`${name} must be a date (YYYY-MM-DD) or an ISO date-time`);
  return ms;
}

/** Comma-separated integers. @param {unknown} v @param {string} name */
function intList(v, name) {
  const s = single(v, name);
  if (s === null) return [];
  const parts = s.split(',');
  if (parts.length > MAX_LIST_VALUES || !parts.every((p) => /^\d{1,10}$/.test(p) && Number(p) <= INT32_MAX)) {
    throw bad(`${name} must be a comma-separated list of integers`);
  }
  return [...new Set(parts.map(Number))];
}

/** @param {Record<string, unknown>} q  Express req.query @returns {DashboardFilter} */
export function parseFilter(q) {
  const modeText = single(q.mode, 'mode');
  const modes = modeText === null ? [] : [...new Set(modeText.split(','))];
  for (const m of modes) if (!CLIENT_MODES.includes(m)) throw bad(`mode must be among ${CLIENT_MODES.join(', ')}`);
  const errors = single(q.errors, 'errors') ?? 'exclude';
  if (!['exclude', 'include', 'only'].includes(errors)) throw bad('errors must be exclude, include or only');
  const filter = {
    fromMs: time(q.from, 'from'),
    toMs: time(q.to, 'to'),
    minBytes: nonNegativeNumber(q.minBytes, 'minBytes'),
    maxBytes: nonNegativeNumber(q.maxBytes, 'maxBytes'),
    modes,
    n: intList(q.n, 'n'),
    window: intList(q.w, 'w'),
    generationSize: intList(q.g, 'g'),
    feedbackEvery: intList(q.feedbackEvery, 'feedbackEvery'),
    errors: /** @type {'exclude' | 'include' | 'only'} */ (errors),
  };
  return filter;
}

/** The downloads page: filter (failed downloads included unless asked otherwise) and page. @param {Record<string, unknown>} q */
export function parseDownloadsQuery(q) {
  const filter = parseFilter({ errors: 'include', ...q });
  const limit = nonNegativeNumber(q.limit, 'limit', MAX_PAGE_ROWS) ?? DEFAULT_PAGE_ROWS;
  const offset = nonNegativeNumber(q.offset, 'offset', MAX_OFFSET_ROWS) ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(offset)) throw bad('limit and offset must be integers, limit >= 1');
  return { filter, limit, offset };
}

/** The analysis page. @param {Record<string, unknown>} q */
export function parseBoxplotQuery(q) {
  const metricName = single(q.metric, 'metric') ?? 'normalizedGoodput';
  if (!Object.hasOwn(METRICS, metricName)) throw bad(`metric must be one of ${Object.keys(METRICS).join(', ')}`);
  const groupBy = single(q.groupBy, 'groupBy') ?? 'n';
  if (!GROUPINGS.includes(groupBy)) throw bad(`groupBy must be one of ${GROUPINGS.join(', ')}`);
  return { metric: /** @type {keyof typeof METRICS} */ (metricName), groupBy, filter: parseFilter(q) };
}

/** A record id in a URL path. @param {unknown} id */
export function parseRecordId(id) {
  if (typeof id !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw bad('not a record id (UUID)');
  return id.toLowerCase();
}
