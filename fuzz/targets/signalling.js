// Target: the proxy's POST /rtc/offer (JSON body parser, offer validation, SDP handed to libdatachannel).
import { mutateBytes, mutateJsonText } from '../lib/mutate.js';
import { rawRequest } from '../lib/raw-http.js';
import { checkAnswer, startFuzzProxy } from '../lib/servers.js';

/** @param {Buffer} seed @param {import('../lib/prng.js').Rng} rng @param {Buffer[]} corpus */
function mutateOffer(seed, rng, corpus) {
  // Half the time keep the JSON valid and damage the SDP text itself, line structure included.
  let o;
  try { o = JSON.parse(seed.toString('utf8')); } catch { o = null; }
  if (o && typeof o === 'object' && typeof o.sdp === 'string' && rng.chance(0.5)) {
    return Buffer.from(JSON.stringify({ ...o, sdp: mutateBytes(Buffer.from(o.sdp, 'latin1'), rng, corpus).toString('latin1') }));
  }
  return mutateJsonText(seed, rng, corpus);
}

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'signalling',
  what: 'proxy POST /rtc/offer (express.json, parseOfferBody, SDP rewrite, node-datachannel setRemoteDescription)',
  ciIterations: 400,
  timeoutMs: 8000,
  setup: startFuzzProxy,
  mutate: mutateOffer,
  async run(ctx, input) {
    const body = Buffer.from(input.toString('latin1').replaceAll('TICKET', ctx.ticket()), 'latin1');
    const r = await rawRequest(ctx.proxy.port, 'POST /rtc/offer HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json', body);
    checkAnswer(r, 'POST /rtc/offer');
  },
  async alive(ctx) {
    const r = await rawRequest(ctx.proxy.port, 'POST /rtc/offer HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json', Buffer.from(`{"type":"offer","ticket":"${ctx.ticket()}"}`));
    if (r.status !== 400) throw new Error(`a plainly bad offer now gets HTTP ${r.status}`);
  },
  teardown: (ctx) => ctx.close(),
};
