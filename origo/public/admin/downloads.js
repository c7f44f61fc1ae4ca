// Downloads: a page of log records (paper FIGURE 6), filterable, refreshed live as records arrive.
import { byId, bytes, esc, filterQuery, fixed, getJson, initPage, millis, rate, when } from './common.js';

/** Rows per page. */
const PAGE_ROWS = 50;
/** Least time between two live refreshes, ms: a bulk upload must not turn into a query storm. */
const LIVE_REFRESH_GAP_MS = 500;

const socket = initPage();
const form = /** @type {HTMLFormElement} */ (byId('filters'));
let offset = 0;
/** @type {Set<string>} */
let shown = new Set();
/** False until the first page is in: rows of the first load are not "new". */
let loaded = false;

/** @param {any} r */
const paramsText = (r) => [r.param_window !== null && `w=${r.param_window}`, r.param_generation_size !== null && `g=${r.param_generation_size}`,
  r.param_feedback_every !== null && `fb=${r.param_feedback_every}`].filter(Boolean).join(' ');

/** @param {any} r @param {boolean} isNew */
const rowHtml = (r, isNew) => `
  <tr class="${isNew ? 'new' : ''}" data-id="${esc(r.id)}">
    <td><a href="/admin/download?id=${esc(r.id)}">${when(r.received_at)}</a></td>
    <td>${esc(r.mode)}</td>
    <td class="num">${r.n}</td>
    <td title="${esc((r.proxy_ids ?? []).join(', '))}">${esc(r.rate_mix ?? (r.proxy_ids ?? []).join(', '))}</td>
    <td class="num">${bytes(r.object_bytes)}</td>
    <td class="num">${bytes(r.gross_bytes)}</td>
    <td class="num">${millis(r.first_packet_ms)}</td>
    <td class="num">${millis(r.server_fetch_ms)}</td>
    <td class="num">${millis(r.duration_ms)}</td>
    <td class="num">${rate(r.throughput_bps)}</td>
    <td class="num">${rate(r.goodput_bps)}</td>
    <td class="num">${fixed(r.normalized_goodput, 3)}</td>
    <td>${esc(paramsText(r))}</td>
    <td class="err" title="${esc(r.error_message ?? '')}">${esc(r.error_code ?? '')}</td>
  </tr>`;

async function load() {
  const q = filterQuery(form);
  for (const f of ['csv', 'parquet']) byId(`export-${f}`).setAttribute('href', `/admin/api/export.${f}?${q}`);
  q.set('limit', String(PAGE_ROWS));
  q.set('offset', String(offset));
  const body = await getJson(`/admin/api/downloads?${q}`);
  const first = !loaded;
  loaded = true;
  byId('downloads').querySelector('tbody').innerHTML = body.rows.map((/** @type {any} */ r) => rowHtml(r, !first && !shown.has(r.id))).join('')
    || '<tr><td colspan="14" class="muted">no records match</td></tr>';
  shown = new Set(body.rows.map((/** @type {any} */ r) => r.id));
  byId('range').textContent = body.total ? `${fixed(offset + 1)}–${fixed(offset + body.rows.length)} of ${fixed(body.total)}` : '0 records';
  /** @type {HTMLButtonElement} */ (byId('prev')).disabled = offset === 0;
  /** @type {HTMLButtonElement} */ (byId('next')).disabled = offset + PAGE_ROWS >= body.total;
}

let refreshing = false;
let again = false;
async function liveRefresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    await load();
    await new Promise((r) => setTimeout(r, LIVE_REFRESH_GAP_MS));
  } finally {
    refreshing = false;
    if (again) { again = false; liveRefresh(); }
  }
}

form.addEventListener('submit', (e) => { e.preventDefault(); offset = 0; loaded = false; load(); });
byId('prev').addEventListener('click', () => { offset = Math.max(0, offset - PAGE_ROWS); load(); });
byId('next').addEventListener('click', () => { offset += PAGE_ROWS; load(); });
// New rows land on the first page (newest first); on older pages only the total would move.
socket.on('downloads', () => { if (offset === 0) liveRefresh(); });
load();
