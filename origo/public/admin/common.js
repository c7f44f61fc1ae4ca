// Shared by the admin pages: navigation, the live socket, number formats, filter forms.
/** socket.io client and ECharts are classic scripts from /admin/vendor (no build step). */
const globals = /** @type {any} */ (globalThis);

/** Bytes per KiB: rates and sizes are shown in the paper's units (896 KB/s = 917,504 B/s). */
const KIB = 1024;
/** Bytes per MB in the chunk-size filters (paper FIGURE 10 buckets are binary MB). */
export const MIB = 1024 * 1024;

/** @param {string} id */
export const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Marks the current page in the nav, wires logout; returns the live socket (namespace /admin). */
export function initPage() {
  const page = document.body.dataset.page;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', /** @type {HTMLElement} */ (a).dataset.nav === page);
  byId('logout').addEventListener('click', async () => {
    await fetch('/admin/api/logout', { method: 'POST' });
    location.href = '/admin/login';
  });
  const socket = globals.io('/admin', { transports: ['websocket'] });
  const live = byId('live');
  socket.on('connect', () => { live.textContent = 'live'; live.classList.add('on'); });
  socket.on('disconnect', () => { live.textContent = 'offline'; live.classList.remove('on'); });
  socket.on('connect_error', (/** @type {Error} */ err) => {
    live.textContent = `offline (${err.message})`;
    if (err.message === 'ERR_AUTH_REQUIRED') location.href = '/admin/login';
  });
  return socket;
}

/** @returns {any} the ECharts namespace */
export const echarts = () => globals.echarts;

/** GET JSON from the admin API; a lost session goes back to the login page. @param {string} url */
export async function getJson(url) {
  const res = await fetch(url);
  if (res.status === 401) location.href = '/admin/login';
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  return body;
}

/** @param {number | null | undefined} v @param {number} [digits] */
export const fixed = (v, digits = 0) => (v === null || v === undefined ? '–' : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
/** @param {number | null | undefined} bps */
export const rate = (bps) => (bps === null || bps === undefined ? '–' : `${fixed(bps / KIB)} KB/s`);
/** @param {number | null | undefined} b */
export function bytes(b) {
  if (b === null || b === undefined) return '–';
  if (b >= MIB) return `${fixed(b / MIB, 2)} MB`;
  if (b >= KIB) return `${fixed(b / KIB, 1)} KB`;
  return `${b} B`;
}
/** @param {number | null | undefined} ms */
export const millis = (ms) => (ms === null || ms === undefined ? '–' : `${fixed(ms, ms < 10 ? 1 : 0)} ms`);
/** @param {number | null | undefined} t  epoch ms */
export const when = (t) => (t === null || t === undefined ? '–' : new Date(t).toISOString().replace('T', ' ').slice(0, 19));

/** Escapes text for innerHTML. @param {unknown} s */
export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A filter form → the admin API's query string (MB inputs become bytes; empty fields are left out).
 * @param {HTMLFormElement} form
 */
export function filterQuery(form) {
  const data = new FormData(form);
  const q = new URLSearchParams();
  for (const [k, v] of data) {
    const value = String(v).trim();
    if (value === '' || k === 'modes') continue;
    if (k === 'minMB') q.set('minBytes', String(Math.round(Number(value) * MIB)));
    else if (k === 'maxMB') q.set('maxBytes', String(Math.round(Number(value) * MIB)));
    else if (k === 'to') q.set('to', new Date(Date.parse(`${value}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)); // inclusive day
    else q.set(k, value.replace(/\s+/g, ''));
  }
  const modes = data.getAll('modes').map(String);
  if (modes.length) q.set('mode', modes.join(','));
  return q;
}
