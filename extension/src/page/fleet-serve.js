// Serve one matching request through the download frame, or decide it goes direct. The
// response starts with the first bytes from the fleet; a failure or a stall before that is a
// silent direct fetch, a failure after it continues the body from the direct fetch, so the
// player always sees one normal, complete response.
import { responseHead } from './response-head.js';

/**
 * @param {AbortSignal | null | undefined} signal
 */
export function abortReason(signal) {
  return signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * Next frame event, or a timeout after `ms` without one (an `alive` from the frame restarts the
 * clock: bytes are arriving even if none is decoded yet), or the caller's abort.
 * @param {import('./frame-link.js').FrameRequest} req
 * @param {number} ms
 * @param {AbortSignal | null | undefined} signal
 * @returns {Promise<Exclude<import('./frame-link.js').FrameEvent, {t: 'alive'}> | {t: 'timeout'} | {t: 'aborted'}>}
 */
function nextWithin(req, ms, signal) {
  if (signal?.aborted) return Promise.resolve({ t: 'aborted' });
  return new Promise((resolve) => {
    const onAbort = () => finish({ t: 'aborted' });
    let timer = setTimeout(() => finish({ t: 'timeout' }), ms);
    signal?.addEventListener('abort', onAbort);
    const finish = (ev) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ev);
    };
    const wait = () => req.next().then((ev) => (ev.t === 'alive' ? (clearTimeout(timer), timer = setTimeout(() => finish({ t: 'timeout' }), ms), wait()) : finish(ev)));
    wait();
  });
}

/**
 * @param {object} o
 * @param {ReturnType<typeof import('./frame-link.js').createFrameLink>} o.link
 * @param {string} o.url
 * @param {{start: number, end: number} | null} o.range
 * @param {AbortSignal | null | undefined} o.signal
 * @param {number} o.noProgressMs
 * @param {string} [o.how]   why it is taken for a segment (pattern, manifest, extension, range): for the stats
 * @param {string | null} [o.next]  the segment file the player likely asks next: the fleet fetches it meanwhile
 * @param {() => Promise<Response>} o.direct   the original request, for the rest of a broken body
 * @param {(msg: string) => void} o.warn
 * @returns {Promise<null | {head: ReturnType<typeof responseHead>, body: AsyncGenerator<Uint8Array>}>}
 *   null: serve it directly (the reason was reported); rejects with the abort reason when aborted
 */
export async function serveThroughFleet({ link, url, range, signal, noProgressMs, how = 'pattern', next = null, direct, warn }) {
  if (signal?.aborted) throw abortReason(signal);
  const req = link.open(url, range, how, next);
  const first = await nextWithin(req, noProgressMs, signal);
  if (first.t === 'aborted') {
    req.cancel('ERR_ABORTED');
    throw abortReason(signal);
  }
  if (first.t !== 'data') {
    req.cancel(first.t === 'timeout' ? 'ERR_NO_PROGRESS' : undefined);
    const reason = first.t === 'timeout' ? `ERR_NO_PROGRESS: nothing for ${noProgressMs} ms` : first.t === 'fail' ? `${first.code}: ${first.message}` : 'ERR_EMPTY: no body';
    warn(`direct fetch for ${url}: ${reason}`);
    link.reportFallback(url, reason, req.id);
    return null;
  }
  const head = responseHead(range, first.head);
  const firstBuf = first.buf; // narrowed here: the generator below does not keep the narrowing

  async function* body() {
    let delivered = firstBuf.byteLength;
    let done = false;
    try {
      yield new Uint8Array(firstBuf);
      for (;;) {
        const ev = await nextWithin(req, noProgressMs, signal);
        if (ev.t === 'data') {
          delivered += ev.buf.byteLength;
          yield new Uint8Array(ev.buf);
        } else if (ev.t === 'end') {
          done = true;
          return;
        } else if (ev.t === 'aborted') {
          req.cancel('ERR_ABORTED');
          done = true;
          throw abortReason(signal);
        } else {
          req.cancel(ev.t === 'timeout' ? 'ERR_NO_PROGRESS' : undefined);
          done = true;
          const reason = ev.t === 'timeout' ? `ERR_NO_PROGRESS: nothing for ${noProgressMs} ms` : `${ev.code}: ${ev.message}`;
          warn(`direct fetch for the rest of ${url} after ${delivered} bytes: ${reason}`);
          link.reportFallback(url, `mid-body ${reason}`, req.id);
          yield* remainder(direct, delivered);
          return;
        }
      }
    } finally {
      if (!done) req.cancel('ERR_ABORTED'); // the reader stopped reading
    }
  }
  return { head, body: body() };
}

/**
 * The body of a direct fetch without its first `skip` bytes.
 * @param {() => Promise<Response>} direct
 * @param {number} skip
 */
async function* remainder(direct, skip) {
  const res = await direct();
  if (!res.ok || !res.body) throw new TypeError(`direct fetch answered HTTP ${res.status}`);
  const reader = res.body.getReader();
  let left = skip;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (left >= value.byteLength) {
      left -= value.byteLength;
      continue;
    }
    yield left > 0 ? value.subarray(left) : value;
    left = 0;
  }
}
