// A stand-in for a proxy's `GET /fetch?url=…` (Range supported; `&digests=1` and first shares too) serving demo media from memory,
// with failure knobs. Lets the client's HTTP modes be tested without the real proxy package.
import http from 'node:http';
import { demoBytes, demoSize } from '@mutp/demo/media';
import { parseRangeHeader } from '@mutp/demo/origin';
import { SHARE_HEADER, blockCount, digestList, encodeDigestList, shareBytes, shareOf, DIGEST_LIST_HEADER } from '@mutp/protocol';

const CHUNK_BYTES = 64 * 1024; // write in slices so a "die after N bytes" knob cuts mid-body

/**
 * @param {object} [o]
 * @param {number} [o.dieAfterBytes]   destroy the connection after this many body bytes (per response)
 * @param {boolean} [o.stall]          send headers, then nothing
 * @param {{status: number, code: string}} [o.error]  answer every request with this JSON error
 * @param {boolean} [o.ignoreRange]    answer 200 with the whole object even when a Range was asked
 * @param {number} [o.holdAfterBytes]  send this many body bytes of each response, then hold the rest until release()
 * @param {boolean} [o.inlineDigests]  a body response carries the digest list in its head, as the real proxy's does for small lists
 * @param {Promise<unknown>} [o.digestGate]  answer `&digests=1` (and a first share, which carries the list) only once this settles
 * @param {boolean} [o.noShares]       a proxy that predates first shares: `&share=` is ignored (the whole object)
 * @param {boolean} [o.shiftShare]     answer a share one block later than asked (right bytes, the wrong blocks)
 * @param {number} [o.headDelayMs]     answer each `/fetch` this long after it came (ms), as a proxy still fetching the
 *   object from its origin
 */
export async function startFakeProxy(o = {}) {
  const requests = [];
  /** per request in `requests`: the number of the TCP connection it came on (1, 2, … in accept order) */
  const requestConnections = [];
  /** @type {() => void} */
  let release = () => {};
  const gate = new Promise((resolve) => { release = () => resolve(undefined); });
  let held = 0; // responses that reached the hold point
  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
  const handle = (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requestConnections.push(/** @type {any} */ (req.socket).connNo);
    requests.push({ path: u.pathname, url: u.searchParams.get('url'), range: req.headers.range ?? null, ...(u.searchParams.get('digests') ? { digests: true } : {}),
      ...(u.searchParams.has('share') ? { share: Number(u.searchParams.get('share')) } : {}) });
    if (o.error) {
      res.writeHead(o.error.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: o.error.code, message: 'refused by test' } }));
      return;
    }
    if (u.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
      return;
    }
    const target = u.searchParams.get('url');
    const size = target ? demoSize(new URL(target).pathname) : null;
    if (u.pathname !== '/fetch' || size === null) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'ERR_ORIGIN_STATUS', message: 'not found' } }));
      return;
    }
    const object = demoBytes(size);
    // `&digests=1`: the digest list of the whole object, served with the same knobs as a body
    const all = u.searchParams.get('digests') === '1' ? encodeDigestList(digestList(object)) : object;
    // `&share=i&weights=…&cap=C`: share i of the blocks (206, or an empty 200), the list in the head
    const asked = !o.noShares && u.searchParams.has('share')
      ? shareOf(blockCount(size), (u.searchParams.get('weights') ?? '').split(',').map(Number), Number(u.searchParams.get('cap')), Number(u.searchParams.get('share')))
      : null;
    const share = asked && o.shiftShare ? { start: asked.start + 1, end: asked.end + 1 } : asked;
    const sharedBytes = share ? shareBytes(share, size) : null;
    const r = sharedBytes ? (sharedBytes.end > sharedBytes.start ? { start: sharedBytes.start, end: sharedBytes.end - 1 } : null)
      : o.ignoreRange || all !== object ? null : parseRangeHeader(req.headers.range, size);
    if (r === 'unsatisfiable') {
      res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    const body = r ? all.subarray(r.start, r.end + 1) : share ? all.subarray(0, 0) : all;
    const headers = { 'content-length': String(body.byteLength), 'server-timing': 'fetch;dur=12.5',
      ...((o.inlineDigests || share) && all === object ? { [DIGEST_LIST_HEADER]: Buffer.from(encodeDigestList(digestList(object))).toString('base64') } : {}),
      ...(share ? { [SHARE_HEADER]: `${share.start}-${share.end}` } : {}) };
    if (r) res.writeHead(206, { ...headers, 'content-range': `bytes ${r.start}-${r.end}/${size}` });
    else res.writeHead(200, headers);
    if (o.stall) { res.flushHeaders(); return; }
    let off = 0;
    let holding = o.holdAfterBytes !== undefined && o.holdAfterBytes < body.byteLength;
    const pump = () => {
      while (off < body.byteLength) {
        if (holding && off >= /** @type {number} */ (o.holdAfterBytes)) {
          holding = false;
          held += 1;
          gate.then(pump);
          return;
        }
        const end = Math.min(body.byteLength, off + CHUNK_BYTES, holding ? /** @type {number} */ (o.holdAfterBytes) : Infinity);
        if (o.dieAfterBytes !== undefined && end > o.dieAfterBytes) {
          res.write(body.subarray(off, Math.max(off, o.dieAfterBytes)), () => res.socket?.destroy());
          return;
        }
        const ok = res.write(body.subarray(off, end));
        off = end;
        if (!ok) { res.once('drain', pump); return; }
      }
      res.end();
    };
    pump();
  };
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const gate = q.get('digests') === '1' || (q.has('share') && !o.noShares) ? o.digestGate : undefined;
    if (gate) gate.then(() => handle(req, res), () => handle(req, res));
    else if (o.headDelayMs) setTimeout(() => handle(req, res), o.headDelayMs);
    else handle(req, res);
  });
  let connections = 0;
  server.on('connection', (socket) => { connections += 1; /** @type {any} */ (socket).connNo = connections; });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestConnections,
    /** Let held responses go on (see holdAfterBytes). */
    release: () => release(),
    /** How many responses reached the hold point so far. */
    held: () => held,
    close: () => new Promise((resolve) => { server.close(() => resolve(undefined)); server.closeAllConnections(); }),
  };
}
