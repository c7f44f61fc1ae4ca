// Plays ?src= with ?player=hls|dash|shaka (the npm builds under /lib/). Wraps fetch and XHR on
// top of whatever the extension installed, so every media response as the player receives it is
// recorded: its URL, Range, status, head, SHA-256 and time. The test compares them to the files.
// ?plugin=1&origo=URL[&mode=M&n=N&hops=1&worker=0&start=first-frame]: no extension; the player's own loader plugin (/plugin/,
// the @mutp/players bundle) serves the segments through the fleet, and reports each one it served;
// worker=0: the fleet runs in the page, not in its worker (so does it with ?csp=no-workers, which
// has the site's server forbid workers); start=first-frame: the fleet starts at the page's first
// frame (createFleet's startOn), the segments before it going direct.
// ?progressive=1: hls.js in its progressive (streaming) mode.
// window.__play: the play's state; `records`: the ids of the records the fleet made for Origo.
const params = new URLSearchParams(location.search);
const state = { player: params.get('player'), errors: [], responses: [], records: [], firstFrameMs: null, stalls: 0, t0: performance.now() };
/** @type {any} */ (window).__play = state;
const video = /** @type {HTMLVideoElement} */ (document.getElementById('v'));
const isManifest = (u) => /\.(m3u8|mpd)(\?|$)/.test(new URL(u, location.href).pathname);
// the site's own media: not a proxy's URL, which names the media in its query
const isMedia = (u) => new URL(u).origin === location.origin && new URL(u).pathname.startsWith('/media/') && !isManifest(u);
const hex = async (buf) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', buf))].map((b) => b.toString(16).padStart(2, '0')).join('');

async function note(url, range, status, type, contentRange, buf, startMs) {
  const endMs = performance.now();
  // atMs/doneMs: since navigation; startAt/endAt: on the wall clock's time origin, so a bench lines them up with the extension's own marks
  state.responses.push({ url, range, status, type, contentRange, bytes: buf.byteLength, sha: await hex(buf), ms: endMs - startMs,
    atMs: startMs, doneMs: endMs, startAt: performance.timeOrigin + startMs, endAt: performance.timeOrigin + endMs });
}

const pageFetch = window.fetch;
window.fetch = async function (input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href).href;
  const range = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('range');
  const t = performance.now();
  const res = await pageFetch.call(this, input, init);
  if (isMedia(url)) {
    res.clone().arrayBuffer().then((b) => note(url, range, res.status, res.headers.get('content-type'), res.headers.get('content-range'), b, t)).catch(() => {});
  }
  return res;
};
const PageXHR = window.XMLHttpRequest;
window.XMLHttpRequest = class extends PageXHR {
  open(method, url, async = true, user = null, password = null) {
    this.__url = new URL(String(url), location.href).href;
    this.__range = null;
    return super.open(method, url, async, user, password);
  }
  setRequestHeader(k, v) {
    if (String(k).toLowerCase() === 'range') this.__range = v;
    return super.setRequestHeader(k, v);
  }
  send(body) {
    const t = performance.now();
    const url = this.__url;
    if (isMedia(url)) {
      this.addEventListener('load', () => {
        const r = this.response;
        const buf = r instanceof ArrayBuffer ? r : typeof r === 'string' ? new TextEncoder().encode(r).buffer : null;
        if (buf) note(url, this.__range, this.status, this.getResponseHeader('content-type'), this.getResponseHeader('content-range'), buf, t);
      });
    }
    return super.send(body);
  }
};

video.addEventListener('error', () => state.errors.push(`video error ${video.error?.code}: ${video.error?.message}`));
const onFrame = () => {
  if (state.firstFrameMs === null && video.currentTime > 0) state.firstFrameMs = performance.now() - state.t0;
};
video.addEventListener('timeupdate', onFrame);
video.addEventListener('waiting', () => { if (state.firstFrameMs !== null) state.stalls += 1; }); // playback waited for data after it began
if ('requestVideoFrameCallback' in video) /** @type {any} */ (video).requestVideoFrameCallback(() => { if (state.firstFrameMs === null) state.firstFrameMs = performance.now() - state.t0; });

function load(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.append(s);
  });
}

/** The plugins and a fleet for this page, when ?plugin=1: each segment it serves is recorded as the player got it. */
async function pluginFleet() {
  if (params.get('plugin') !== '1') return null;
  const bundle = '/plugin/mutp-players.js'; // served by the site, not a module of this repository
  const plugins = await import(bundle);
  const n = params.get('n');
  const fleet = plugins.createFleet({ origo: String(params.get('origo')), mode: params.get('mode') ?? 'random', n: n && n !== 'random' ? Number(n) : 'random', hopTiming: params.get('hops') === '1',
    ...(params.get('worker') === '0' ? { worker: false } : {}), ...(params.get('start') ? { startOn: params.get('start') } : {}) });
  fleet.addEventListener('segment', (e) => {
    const d = e.detail;
    if (d.via !== 'fleet') return; // a direct one went through the wrappers above
    const header = (k) => d.head.headers.find(([h]) => h === k)?.[1] ?? null;
    const range = d.range ? `bytes=${d.range.start}-${d.range.end}` : null;
    note(d.url, range, d.head.status, header('content-type'), header('content-range'), d.data, performance.now() - d.ms);
  });
  fleet.addEventListener('record', (e) => { state.records.push(e.detail.id); }); // the ids of the records the fleet made for Origo
  // added after the fleet's own: the site learns that this page's pagehide handlers ran (checkRecordsSentOnClose)
  state.pageId = crypto.randomUUID();
  addEventListener('pagehide', () => navigator.sendBeacon(`/pagehide?page=${state.pageId}`));
  /** @type {any} */ (window).__fleet = fleet;
  fleet.runsIn().then((where) => { state.fleetRunsIn = where; }); // 'worker' or 'page'
  return { ...plugins, fleet };
}

async function main() {
  const src = String(params.get('src'));
  const w = /** @type {any} */ (window);
  const LIBS = { hls: '/lib/hls.js', dash: '/lib/dash.js', shaka: '/lib/shaka.js' };
  // the player and the plugins load at once, as a site would load them
  const [plug] = await Promise.all([pluginFleet(), LIBS[state.player] ? load(LIBS[state.player]) : null]);
  if (state.player === 'hls') {
    const hls = new w.Hls({ enableWorker: false, progressive: params.get('progressive') === '1', ...(plug ? plug.fleetHlsConfig(plug.fleet, w.Hls) : {}) });
    hls.on(w.Hls.Events.ERROR, (_e, d) => { if (d.fatal) state.errors.push(`hls.js: ${d.type} ${d.details}`); });
    hls.loadSource(src);
    hls.attachMedia(video);
  } else if (state.player === 'dash') {
    const p = w.dashjs.MediaPlayer().create();
    if (plug) plug.fleetDashLoader(p, plug.fleet);
    p.on(w.dashjs.MediaPlayer.events.ERROR, (e) => state.errors.push(`dash.js: ${JSON.stringify(e.error ?? e).slice(0, 300)}`));
    p.initialize(video, src, true);
  } else if (state.player === 'shaka') {
    w.shaka.polyfill.installAll();
    if (plug) plug.registerFleetScheme(w.shaka, plug.fleet);
    const p = new w.shaka.Player();
    await p.attach(video);
    p.addEventListener('error', (e) => state.errors.push(`shaka: ${e.detail?.code} ${e.detail?.message ?? ''}`));
    await p.load(src);
  } else {
    throw new Error(`unknown player ${state.player}`);
  }
  await video.play().catch(() => {}); // autoplay is allowed in the tests; a player may start it itself
}
main().catch((err) => state.errors.push(String(err?.message ?? err)));
