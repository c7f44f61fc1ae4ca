// A man in the middle on loopback in front of one real proxy: forwards every HTTP request and
// tampers with what passes, so a test gets a lying proxy without any fault flag in the proxy's
// own code. It may rewrite the origin URL a request names (the proxy then serves, and digests,
// another object) and change response bytes on the way back (a body, or a digest list: asked
// for, or carried in a body response's header).
import http from 'node:http';
import { once } from 'node:events';
import { DIGEST_LIST_HEADER } from '@mutp/protocol';

const INLINE_DIGESTS = DIGEST_LIST_HEADER.toLowerCase(); // as node:http names response headers

/**
 * @typedef {object} Tamper
 * @property {(url: string, digests: boolean) => string} [rewriteUrl]  the origin URL to ask the proxy for instead
 * @property {(chunk: Buffer, objectOffset: number) => void} [body]    change a body chunk in place (its first byte's object offset)
 * @property {(list: Buffer) => void} [digests]                         change a whole digest list in place
 * @property {number} [delayBodyMs]  hold body requests this long before forwarding them (an honest but slower proxy)
 * @property {number} [delayListAnswerMs]  hold the proxy's answers to digest list requests this long before passing them on
 */

/**
 * @param {{ upstream: string, tamper: Tamper }} o  upstream: the real proxy's base URL
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startTamperProxy({ upstream, tamper }) {
  const up = new URL(upstream);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', upstream);
    const isDigests = u.searchParams.get('digests') === '1';
    const target = u.searchParams.get('url');
    if (target && tamper.rewriteUrl) u.searchParams.set('url', tamper.rewriteUrl(target, isDigests));
    const forward = () => {
      const out = http.request({ host: up.hostname, port: up.port, method: req.method, path: u.pathname + u.search, headers: { ...req.headers, host: up.host } }, (pres) => {
        if (isDigests && tamper.delayListAnswerMs) {
          pres.pause();
          setTimeout(() => { pres.resume(); answer(pres); }, tamper.delayListAnswerMs);
        } else answer(pres);
      });
      /** @param {http.IncomingMessage} pres */
      const answer = (pres) => {
        const inline = pres.headers[INLINE_DIGESTS];
        if (typeof inline === 'string' && tamper.digests) {
          // the list a body response carries lies as the asked one does
          const list = Buffer.from(inline, 'base64');
          tamper.digests(list);
          pres.headers[INLINE_DIGESTS] = list.toString('base64');
        }
        res.writeHead(pres.statusCode ?? 502, pres.headers);
        res.flushHeaders(); // the head goes on when it came, as the proxy sent it, not with the first body byte
        if (isDigests && tamper.digests) {
          /** @type {Buffer[]} */
          const parts = [];
          pres.on('data', (c) => parts.push(c));
          pres.on('end', () => {
            const list = Buffer.concat(parts);
            /** @type {(list: Buffer) => void} */ (tamper.digests)(list);
            res.end(list);
          });
          return;
        }
        let at = Number(/^bytes (\d+)-/.exec(String(pres.headers['content-range'] ?? ''))?.[1] ?? 0);
        pres.on('data', (/** @type {Buffer} */ c) => {
          if (!isDigests && tamper.body && pres.statusCode && pres.statusCode < 300) tamper.body(c, at);
          at += c.byteLength;
          if (!res.write(c)) {
            pres.pause();
            res.once('drain', () => pres.resume());
          }
        });
        pres.on('end', () => res.end());
        pres.on('error', () => res.destroy());
      };
      out.on('error', () => res.destroy());
      res.on('close', () => out.destroy());
      req.pipe(out);
    };
    if (tamper.delayBodyMs && !isDigests) setTimeout(forward, tamper.delayBodyMs);
    else forward();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
