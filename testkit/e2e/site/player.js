// A 2018-YouTube-like MSE player: fetch ~1 MB byte-range chunks (`videoplayback?…&range=a-b`)
// while less than AHEAD_S seconds are buffered; even chunks with fetch, odd ones with XHR.
// It records each chunk's SHA-256 so the test can compare the bytes with the file.
const AHEAD_S = 8; // buffer goal: keeps chunk requests flowing during playback (fault tests need that)
const POLL_MS = 200;

const state = { chunks: [], errors: [], appended: 0, done: false, started: false, inFlight: false, stop: false };
/** @type {any} */ (window).__player = state;
const video = /** @type {HTMLVideoElement} */ (document.getElementById('v'));
video.addEventListener('error', () => state.errors.push(`video error ${video.error?.code}: ${video.error?.message}`));

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function getXhr(url) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open('GET', url);
    x.responseType = 'arraybuffer';
    let progress = 0;
    x.onprogress = () => { progress += 1; };
    x.onload = () => (x.status === 200 ? resolve({ buf: x.response, progress, readyState: x.readyState }) : reject(new Error(`XHR ${x.status}`)));
    x.onerror = () => reject(new Error('XHR error'));
    x.send();
  });
}

async function getFetch(url) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`fetch ${res.status}`);
  return { buf: await res.arrayBuffer(), type: res.headers.get('content-type') };
}

function append(sb, buf) {
  return new Promise((resolve, reject) => {
    sb.addEventListener('updateend', () => resolve(undefined), { once: true });
    sb.addEventListener('error', () => reject(new Error('SourceBuffer error')), { once: true });
    sb.appendBuffer(buf);
  });
}

function bufferedAhead() {
  const b = video.buffered;
  return b.length ? b.end(b.length - 1) - video.currentTime : 0;
}

async function main() {
  const info = await (await fetch('/api/video')).json();
  const ms = new MediaSource();
  video.src = URL.createObjectURL(ms);
  await new Promise((r) => ms.addEventListener('sourceopen', r, { once: true }));
  const sb = ms.addSourceBuffer(info.mime);
  const mime = encodeURIComponent(info.mime.split(';')[0]);
  for (let start = 0, i = 0; start < info.size; i++) {
    while ((state.started && bufferedAhead() > AHEAD_S) || state.stop) await sleep(POLL_MS); // stop: a test wants a quiet player
    state.inFlight = true;
    const end = Math.min(start + info.chunkBytes, info.size) - 1;
    const url = `/videoplayback?id=test&itag=18&mime=${mime}&range=${start}-${end}&rn=${i}`;
    const api = i % 2 === 0 ? 'fetch' : 'xhr';
    const t0 = performance.now();
    const got = api === 'fetch' ? await getFetch(url) : await getXhr(url);
    const ms1 = performance.now() - t0;
    const sha = hex(await crypto.subtle.digest('SHA-256', got.buf));
    state.chunks.push({ i, start, end, api, bytes: got.buf.byteLength, sha, ms: ms1, type: got.type ?? null, progress: got.progress ?? null });
    await append(sb, got.buf);
    state.appended += 1;
    state.inFlight = false;
    if (!state.started) {
      state.started = true;
      video.play().catch((e) => state.errors.push(`play(): ${e.message}`));
    }
    start = end + 1;
  }
  ms.endOfStream();
  state.done = true;
}

main().catch((e) => state.errors.push(`player: ${e.message}`));
