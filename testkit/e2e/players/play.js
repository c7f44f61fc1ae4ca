// Plays ?src= with ?player=hls|dash|shaka (the npm builds under /lib/). Wraps fetch and XHR on
// top of whatever the extension installed, so every media response as the player receives it is
// recorded: its URL, Range, status, head, SHA-256 and time. The test compares them to the files.
const params = new URLSearchParams(location.search);
const state = { player: params.get('player'), errors: [], responses: [], firstFrameMs: null, t0: performance.now() };
/** @type {any} */ (window).__play = state;
const video = /** @type {HTMLVideoElement} */ (document.getElementById('v'));
const isManifest = (u) => /\.(m3u8|mpd)(\?|$)/.test(new URL(u, location.href).pathname);
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
  if (url.includes('/media/') && !isManifest(url)) {
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
    if (url.includes('/media/') && !isManifest(url)) {
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

async function main() {
  const src = String(params.get('src'));
  const w = /** @type {any} */ (window);
  if (state.player === 'hls') {
    await load('/lib/hls.js');
    const hls = new w.Hls({ enableWorker: false });
    hls.on(w.Hls.Events.ERROR, (_e, d) => { if (d.fatal) state.errors.push(`hls.js: ${d.type} ${d.details}`); });
    hls.loadSource(src);
    hls.attachMedia(video);
  } else if (state.player === 'dash') {
    await load('/lib/dash.js');
    const p = w.dashjs.MediaPlayer().create();
    p.on(w.dashjs.MediaPlayer.events.ERROR, (e) => state.errors.push(`dash.js: ${JSON.stringify(e.error ?? e).slice(0, 300)}`));
    p.initialize(video, src, true);
  } else if (state.player === 'shaka') {
    await load('/lib/shaka.js');
    w.shaka.polyfill.installAll();
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
