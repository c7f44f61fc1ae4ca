// Target: the extension's check of page → download-frame messages (extension/src/frame/page-request.js).
// The page is untrusted: whatever it posts must come out as a well-formed command or {t: 'bad'}.
import { parsePageMessage } from '@mutp/extension/page-request';
import { MAX_URL_CHARS } from '@mutp/proxyclientlib/limits';
import { mutateJsonText } from '../lib/mutate.js';


/** @param {any} out */
function checkVerdict(out) {
  if (!out || typeof out !== 'object') throw new Error('no verdict object');
  if (out.t === 'bad') { if (typeof out.why !== 'string') throw new Error('bad verdict without a reason'); return; }
  if (out.t === 'abort') { if (!Number.isSafeInteger(out.id) || out.id < 1) throw new Error('abort with a bad id'); return; }
  if (out.t === 'fallback') { if (typeof out.url !== 'string' || out.url.length > MAX_URL_CHARS || typeof out.reason !== 'string') throw new Error('fallback with bad fields'); return; }
  if (out.t !== 'get') throw new Error(`unknown verdict ${out.t}`);
  if (!Number.isSafeInteger(out.id) || out.id < 1) throw new Error('get with a bad id');
  const u = new URL(out.url); // must parse: the frame hands it to the client
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`get for ${u.protocol}`);
  if (out.url.length > MAX_URL_CHARS) throw new Error('get with an over-long url');
  const r = out.range;
  if (r !== null && !(Number.isSafeInteger(r.start) && Number.isSafeInteger(r.end) && r.start >= 0 && r.end >= r.start)) throw new Error('get with a bad range');
}

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'extension',
  what: 'extension parsePageMessage (page → frame postMessage payloads)',
  ciIterations: 20000,
  timeoutMs: 500,
  async setup() { return {}; },
  mutate: mutateJsonText,
  async run(_ctx, input) {
    let msg;
    try { msg = JSON.parse(input.toString('utf8')); } catch { msg = input.toString('latin1'); } // a page may post any value
    checkVerdict(parsePageMessage(msg));
  },
  async alive() {},
  async teardown() {},
};
