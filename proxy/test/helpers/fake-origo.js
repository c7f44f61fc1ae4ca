// A tiny stand-in for Origo's /proxy namespace (contract in docs/origo-api.md), for link tests.
import http from 'node:http';
import { once } from 'node:events';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Server } from 'socket.io';

/** @param {string} secret @param {string} proxyId */
export const tokenFor = (secret, proxyId) => createHmac('sha256', secret).update(proxyId).digest('hex');

/**
 * @param {{ secret: string, port?: number, store: Map<string, object>, statuses?: object[],
 *           refusals?: string[], onLogs?: (records: any[], ack: (a: object) => void) => boolean }} opts
 *   store survives restarts (like Origo's database); onLogs may take over a batch (return true).
 */
export async function startFakeOrigo(opts) {
  const server = http.createServer();
  const io = new Server(server);
  const nsp = io.of('/proxy');
  nsp.use((socket, next) => {
    const { proxyId, token } = socket.handshake.auth ?? {};
    const code = !proxyId || !token ? 'ERR_AUTH_MISSING'
      : token.length === 64 && timingSafeEqual(Buffer.from(token), Buffer.from(tokenFor(opts.secret, proxyId))) ? null
        : 'ERR_AUTH_BAD_TOKEN';
    if (!code) return next();
    opts.refusals?.push(code);
    next(Object.assign(new Error(code), { data: { code } }));
  });
  nsp.on('connection', (socket) => {
    socket.on('status', (s) => opts.statuses?.push(s));
    socket.on('logs', (records, ack) => {
      if (opts.onLogs?.(records, ack)) return;
      const stored = [];
      const duplicates = [];
      for (const r of records) {
        if (opts.store.has(r.id)) duplicates.push(r.id);
        else {
          opts.store.set(r.id, r);
          stored.push(r.id);
        }
      }
      ack({ ok: true, stored, duplicates, rejected: [] });
    });
  });
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    io,
    /** @param {{ graceful?: boolean }} [how] graceful: tell clients to go (socket.io DISCONNECT) */
    async close(how = {}) {
      io.of('/proxy').disconnectSockets(!how.graceful);
      await new Promise((resolve) => io.close(() => resolve(undefined)));
    },
  };
}

/** Polls `cond` on the event loop (no wall-clock assertion; mocha's timeout bounds it). @param {() => boolean} cond */
export async function until(cond) {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}
