// Target: Origo's socket.io namespace /proxy (`status` and `logs` events) from an authenticated
// proxy socket; payloads are mutated JSON, sometimes raw binary.
import { io as connectSocket } from 'socket.io-client';
import { mutateJsonText } from '../lib/mutate.js';
import { rawRequest } from '../lib/raw-http.js';
import { startFuzzOrigo } from '../lib/servers.js';
import { codedError } from '@mutp/common/errors';

const PROXY_ID = 'fuzz-proxy'; // the corpus records name this id
const ACK_TIMEOUT_MS = 3000; // Origo acks `logs` after one DuckDB commit: far less than this
const CONNECT_TIMEOUT_MS = 5000;

/** @param {string} url @param {string} token */
async function connect(url, token) {
  const socket = connectSocket(`${url}/proxy`, { auth: { proxyId: PROXY_ID, token }, transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('socket.io connect timed out')), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => { clearTimeout(t); resolve(undefined); });
    socket.once('connect_error', (err) => { clearTimeout(t); reject(err); });
  });
  return socket;
}

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'socketio',
  what: 'Origo socket.io /proxy: status and logs payloads (schema, proxy-id binding, store, ack)',
  ciIterations: 1500,
  timeoutMs: 6000,
  async setup() {
    const s = await startFuzzOrigo();
    return { ...s, socket: await connect(s.origo.url, s.token(PROXY_ID)), reconnects: 0 };
  },
  mutate: mutateJsonText,
  async run(ctx, input, rng) {
    if (!ctx.socket.connected) { ctx.socket.close(); ctx.socket = await connect(ctx.origo.url, ctx.token(PROXY_ID)); ctx.reconnects++; }
    let msg;
    try { msg = JSON.parse(input.toString('utf8')); } catch { msg = null; }
    const event = msg && typeof msg === 'object' && typeof msg.event === 'string' && rng.chance(0.9) ? msg.event : rng.pick(['status', 'logs']);
    const payload = msg && typeof msg === 'object' && 'payload' in msg && rng.chance(0.9) ? msg.payload : input; // raw bytes travel as a binary attachment
    if (event === 'logs') {
      const ack = await ctx.socket.timeout(ACK_TIMEOUT_MS).emitWithAck('logs', payload);
      if (!ack || typeof ack !== 'object' || typeof ack.ok !== 'boolean') throw new Error(`logs ack malformed: ${JSON.stringify(ack)?.slice(0, 200)}`);
      if (!ack.ok && ack.error?.code !== 'ERR_BAD_BATCH') throw codedError('ERR_FUZZ_BAD_ACK', `logs refused with ${ack.error?.code}`);
    } else {
      ctx.socket.emit(event, payload);
    }
  },
  async alive(ctx) {
    const r = await rawRequest(ctx.origo.port, 'GET /healthz HTTP/1.1\r\nhost: 127.0.0.1');
    if (r.status !== 200) throw new Error(`/healthz answers ${r.status}`);
    if (!ctx.socket.connected) { ctx.socket.close(); ctx.socket = await connect(ctx.origo.url, ctx.token(PROXY_ID)); ctx.reconnects++; }
    // a genuine batch is still stored and acked
    const id = globalThis.crypto.randomUUID();
    const ack = await ctx.socket.timeout(ACK_TIMEOUT_MS).emitWithAck('logs', [{ id, proxyId: PROXY_ID, startedAt: new Date().toISOString(), mode: 'http', url: 'http://127.0.0.1/x', packetsSent: 1, bytesSent: 1, durationMs: 1 }]);
    if (!ack?.ok || !ack.stored?.includes(id)) throw new Error(`a genuine logs batch is no longer stored: ${JSON.stringify(ack)}`);
  },
  async teardown(ctx) {
    ctx.socket.close();
    await ctx.origo.close();
  },
};
