// Popup: live statistics of the current tab: ?tab=ID (a detached view), else the tab the popup is
// framed in (as the tests screenshot it; Firefox gives a framed extension page no `tabs` API, and
// the background knows the sender's tab), else the window's active tab.
import browser from '../shared/api.js';
import { loadSettings, SETTINGS_KEY } from '../shared/storage.js';
import { activeOn, siteListed } from '../shared/sites.js';
import { showInsecureNotice } from '../shared/insecure-notice.js';

const REFRESH_MS = 1000; // "live" at human speed

const $ = (id) => document.getElementById(id);
const fmtRate = (bps) => (bps >= 1e6 ? `${(bps / 1e6).toFixed(1)} MB/s` : `${(bps / 1e3).toFixed(0)} kB/s`);
const fmtBytes = (b) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(0)} kB`);

const SENDER_TAB = 'sender'; // tab-stats of the tab this page is framed in

/** @returns {Promise<number | typeof SENDER_TAB | null>} */
async function tabId() {
  const q = Number(new URLSearchParams(location.search).get('tab'));
  if (Number.isInteger(q) && q > 0) return q;
  if (window.parent !== window) return SENDER_TAB;
  const [tab] = await browser.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

function spark(values) {
  const svg = $('spark');
  svg.replaceChildren();
  if (values.length < 2) return;
  const max = Math.max(...values) || 1;
  const pts = values.map((v, i) => `${(i / (values.length - 1)) * 118 + 1},${23 - (v / max) * 22}`).join(' ');
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', pts);
  svg.appendChild(line);
}

const fmtCounts = (o) => Object.entries(o ?? {}).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');

/** This page's site: what the extension does there, and the one-click list changes. */
function renderSite(settings, pageUrl) {
  let host = null;
  try {
    const u = new URL(pageUrl);
    if (u.protocol === 'http:' || u.protocol === 'https:') host = u.hostname;
  } catch {
    // no page URL (a browser page): no site actions
  }
  $('origo').textContent = settings.origoUrl;
  $('site').textContent = host ?? 'this page';
  const on = host ? activeOn(settings, host) : null;
  $('siteState').textContent = on ? on.why : 'not a web page';
  const denied = host !== null && siteListed(settings.denySites, host);
  $('siteAdd').hidden = !host || denied || !settings.enabled || Boolean(on?.detect);
  $('siteDeny').hidden = !host || denied;
  $('siteAllow').hidden = !denied;
  return host;
}

/** @param {(s: Record<string, any>) => void} change */
async function changeSettings(change) {
  const current = (await browser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] ?? {};
  const next = { ...(await loadSettings()), ...current };
  change(next);
  await browser.storage.local.set({ [SETTINGS_KEY]: next });
  refresh();
}
let currentHost = null;
$('siteAdd').addEventListener('click', () => changeSettings((s) => {
  s.sites = [...new Set([...s.sites, currentHost])];
  if (s.detect === 'off') s.detect = 'listed-sites';
}));
$('siteDeny').addEventListener('click', () => changeSettings((s) => { s.denySites = [...new Set([...s.denySites, currentHost])]; }));
$('siteAllow').addEventListener('click', () => changeSettings((s) => { s.denySites = s.denySites.filter((h) => h !== currentHost); }));

function render(s, enabled) {
  $('state').textContent = enabled ? 'on' : 'off';
  $('state').className = enabled ? '' : 'off';
  $('manifests').textContent = String(s.manifests ?? 0);
  $('segments').textContent = `${s.segments ?? 0}${s.segments ? ` (${fmtCounts(s.byHow)})` : ''}`;
  $('fleet').textContent = String(s.fleet);
  $('direct').textContent = String(s.direct);
  $('directBy').textContent = s.direct ? `(${fmtCounts(s.directBy)})` : '';
  $('last').textContent = s.last ? `${s.last.mode}, N = ${s.last.n}` : '–';
  const g = s.goodputBps;
  $('goodput').textContent = g.length ? fmtRate(g[g.length - 1]) : '–';
  spark(g);
  const entries = Object.entries(s.proxyBytes).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((a, [, b]) => a + b, 0) || 1;
  $('proxies').replaceChildren(...(entries.length ? entries.map(([id, bytes]) => {
    const row = document.createElement('div');
    row.className = 'bar';
    const name = document.createElement('span');
    name.textContent = id;
    const fill = document.createElement('div');
    fill.className = 'fill';
    fill.style.width = `${(100 * bytes / total).toFixed(1)}%`;
    const num = document.createElement('span');
    num.className = 'num';
    num.textContent = fmtBytes(bytes);
    row.append(name, fill, num);
    return row;
  }) : [Object.assign(document.createElement('p'), { className: 'none', textContent: 'No chunk through the fleet yet.' })]));
  $('fallbacks').replaceChildren(...s.fallbacks.slice().reverse().map((f) => {
    const li = document.createElement('li');
    li.textContent = `${f.at.slice(11, 19)} ${f.reason}`;
    li.title = f.url;
    return li;
  }));
}

async function refresh() {
  const id = await tabId();
  const settings = await loadSettings();
  if (id === null) return;
  const res = await browser.runtime.sendMessage({ t: 'tab-stats', tabId: id });
  currentHost = renderSite(settings, res?.pageUrl ?? null);
  if (res?.stats) render(res.stats, settings.enabled);
}

refresh();
setInterval(refresh, REFRESH_MS);
loadSettings().then((s) => showInsecureNotice(document.getElementById('insecureNotice'), s.origoUrl));
