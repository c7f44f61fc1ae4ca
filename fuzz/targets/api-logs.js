// Target: Origo's POST /api/logs and /api/logs/v2 (body parser, packet logs in columns, JSON
// schema, idempotent DuckDB insert).
import { mutateJsonText } from '../lib/mutate.js';
import { rawRequest } from '../lib/raw-http.js';
import { checkAnswer, startFuzzOrigo } from '../lib/servers.js';
import { codedError } from '@mutp/common/errors';

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', ''];

/** @type {import('../lib/harness.js').FuzzTarget} */
export default {
  name: 'api-logs',
  what: 'Origo POST /api/logs and /api/logs/v2 (JSON body, packet logs in columns, client-record schema, store)',
  ciIterations: 1500,
  timeoutMs: 5000,
  setup: startFuzzOrigo,
  mutate: mutateJsonText,
  async run(ctx, input, rng) {
    const type = rng.chance(0.9) ? CONTENT_TYPES[0] : rng.pick(CONTENT_TYPES);
    const path = rng.chance(0.5) ? '/api/logs/v2' : '/api/logs';
    const r = await rawRequest(ctx.origo.port, `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1${type ? `\r\ncontent-type: ${type}` : ''}`, input);
    checkAnswer(r, `POST ${path}`);
    if (r.status === 503) throw codedError('ERR_FUZZ_5XX', 'the store refused a commit on junk input');
  },
  async alive(ctx) {
    const r = await rawRequest(ctx.origo.port, 'GET /healthz HTTP/1.1\r\nhost: 127.0.0.1');
    if (r.status !== 200) throw new Error(`/healthz answers ${r.status}`);
  },
  teardown: (ctx) => ctx.origo.close(),
};
