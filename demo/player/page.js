// The demo page: hls.js plays the demo stream with the fleet's loader plugin, and the counters
// show what came through the fleet and what came directly. ?mode=…&n=… choose the fleet's mode
// and proxies per segment (default: Coded MUTP from 4 proxies). window.__demo is what a test reads.
const PLUGIN = './plugin/mutp-players.js'; // the @mutp/players browser bundle the origin serves
const COUNTERS_EVERY_MS = 500; // the records and fallbacks arrive between segments too
// hls.js buffers 30 s ahead by default: on loopback it would fetch the whole 24 s stream in the
// first second, over HTTP while the fleet's WebRTC connections open. A short buffer spreads the
// segments over the play, as a real link's rate would, so the page shows the mode at work.
const BUFFER_AHEAD_S = 6;
const params = new URLSearchParams(location.search);
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const video = /** @type {HTMLVideoElement} */ ($('video'));
const state = { segments: /** @type {object[]} */ ([]), errors: /** @type {string[]} */ ([]), ended: false, firstFrameMs: /** @type {number | null} */ (null), fleet: /** @type {any} */ (null) };
/** @type {any} */ (window).__demo = state;

const form = /** @type {HTMLFormElement} */ ($('settings'));
for (const name of ['mode', 'n']) if (params.has(name)) /** @type {HTMLSelectElement} */ (form.elements.namedItem(name)).value = String(params.get(name));
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const q = new URLSearchParams(/** @type {any} */ (new FormData(form)));
  location.search = q.toString();
});

const kib = (/** @type {number} */ b) => `${(b / 1024).toFixed(1)} KiB`;
const sum = (/** @type {Record<string, number>} */ o) => Object.values(o).reduce((a, b) => a + b, 0);
const list = (/** @type {Record<string, number>} */ o) => Object.entries(o).map(([k, v]) => `${k} ${kib(v)}`).join(', ');

function showCounters() {
  const s = state.fleet?.stats();
  if (!s) return;
  const direct = state.segments.filter((x) => x.via === 'direct');
  $('fleet-segments').textContent = String(state.segments.length - direct.length);
  $('fleet-bytes').textContent = kib(state.segments.filter((x) => x.via === 'fleet').reduce((a, x) => a + x.bytes, 0));
  $('direct-segments').textContent = String(direct.length);
  $('direct-bytes').textContent = kib(sum(s.directBytes));
  $('by-mode').textContent = list(s.fleetBytes) || 'none yet';
  $('by-reason').textContent = Object.entries(s.directBy).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none';
  $('last').textContent = s.last ? `${s.last.mode}, ${s.last.n} proxies` : 'none yet';
  $('records').textContent = s.records ? `${s.records.stored} stored, ${s.records.queued} queued` : 'off';
}

/** @param {{url: string, via: string, bytes: number, ms?: number, firstByteMs?: number, data: ArrayBuffer | Uint8Array | null}} d */
async function noteSegment(d) {
  const at = state.segments.length;
  const row = { url: d.url, via: d.via, bytes: d.bytes, ms: d.ms ?? null, firstByteMs: d.firstByteMs ?? null, sha: /** @type {string | null} */ (null) };
  state.segments.push(row);
  const tr = document.createElement('tr');
  if (d.via === 'direct') tr.className = 'direct';
  const cells = [String(at + 1), new URL(d.url).pathname.split('/').pop(), d.via, String(d.bytes), row.ms === null ? '' : row.ms.toFixed(1), row.firstByteMs === null ? '' : row.firstByteMs.toFixed(1)];
  for (const c of cells) tr.append(Object.assign(document.createElement('td'), { textContent: c }));
  document.querySelector('#segments tbody')?.append(tr);
  showCounters();
  if (d.data) row.sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {ArrayBuffer} */ (d.data)))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function main() {
  const config = await (await fetch('./config.json')).json();
  if (!config.origo) throw new Error('no Origo URL: start the page with npm start');
  const [{ createFleet, fleetHlsConfig }] = await Promise.all([import(PLUGIN), loadScript('./lib/hls.js')]);
  const n = params.get('n') ?? '4';
  const fleet = createFleet({ origo: config.origo, mode: params.get('mode') ?? 'coded', n: n === 'random' ? 'random' : Number(n), randomN: [1, 2, 4] });
  state.fleet = fleet;
  fleet.addEventListener('segment', (/** @type {any} */ e) => { noteSegment(e.detail); });
  setInterval(showCounters, COUNTERS_EVERY_MS);
  const Hls = /** @type {any} */ (window).Hls;
  const hls = new Hls({ enableWorker: false, maxBufferLength: BUFFER_AHEAD_S, maxMaxBufferLength: BUFFER_AHEAD_S, ...fleetHlsConfig(fleet, Hls) });
  hls.on(Hls.Events.ERROR, (/** @type {any} */ _e, /** @type {any} */ d) => { if (d.fatal) fail(`hls.js: ${d.type} ${d.details}`); });
  hls.loadSource(new URL(config.stream, location.href).href);
  hls.attachMedia(video);
  $('status').textContent = `playing through ${config.origo}'s fleet`;
}

/** @param {string} src */
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = Object.assign(document.createElement('script'), { src, onload: resolve, onerror: () => reject(new Error(`cannot load ${src}`)) });
    document.head.append(s);
  });
}

/** @param {string} msg */
function fail(msg) {
  state.errors.push(msg);
  $('status').textContent = msg;
  $('status').className = 'error';
}

const t0 = performance.now();
video.addEventListener('timeupdate', () => { if (state.firstFrameMs === null && video.currentTime > 0) state.firstFrameMs = performance.now() - t0; }, { once: false });
video.addEventListener('ended', () => {
  state.ended = true;
  showCounters();
  $('status').textContent = 'played to the end';
});
video.addEventListener('error', () => fail(`video error ${video.error?.code}: ${video.error?.message}`));
main().catch((err) => fail(String(err?.message ?? err)));
