// Target: the proxy's GET /fetch (query string and Range header), over raw TCP against a real proxy.
import { mutateBytes } from '../lib/mutate.js';
import { rawRequest } from '../lib/raw-http.js';
import { checkAnswer, startFuzzProxy } from '../lib/servers.js';

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'fetch',
  what: 'proxy GET /fetch?url=… with a Range header (query parser, SSRF guard, range-parser, object cache)',
  ciIterations: 1500,
  timeoutMs: 5000,
  setup: startFuzzProxy,
  mutate: mutateBytes,
  async run(ctx, input) {
    // corpus format: "<query>\n<range header>"; ORIGIN stands for the demo origin's base URL, TICKET for a valid ticket
    const text = input.toString('latin1').replaceAll('ORIGIN', encodeURIComponent(ctx.origin.url)).replaceAll('TICKET', ctx.ticket());
    const nl = text.indexOf('\n');
    const query = nl < 0 ? text : text.slice(0, nl);
    const range = nl < 0 ? '' : text.slice(nl + 1);
    const head = `GET /fetch?${query} HTTP/1.1\r\nhost: 127.0.0.1\r\n${range ? `range: ${range}\r\n` : ''}x-fuzz: 1`;
    checkAnswer(await rawRequest(ctx.proxy.port, Buffer.from(head, 'latin1')), 'GET /fetch');
  },
  async alive(ctx) {
    const r = await rawRequest(ctx.proxy.port, `GET /fetch?url=${encodeURIComponent(`${ctx.origin.url}/media/demo-1KB.bin`)}&ticket=${ctx.ticket()} HTTP/1.1\r\nhost: 127.0.0.1`);
    if (r.status !== 200 || r.body.length !== 1024) throw new Error(`a genuine /fetch now gets HTTP ${r.status}, ${r.body.length} B`);
  },
  teardown: (ctx) => ctx.close(),
};
