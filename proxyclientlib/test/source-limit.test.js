// The wire carries at most MAX_SOURCES sources (a feedback echoes one u32 per source): more
// proxies are refused up front with ERR_BAD_OPTION, as a rejected promise, in every mode.
import assert from 'node:assert/strict';
import { MAX_SOURCES } from '@mutp/protocol';
import { createClient, MAX_PROXIES, redactUrl } from '@mutp/proxyclientlib';
import { MAX_URL_CHARS } from '@mutp/proxyclientlib/limits';
import { downloadMutp } from '../src/mutp/index.js';
import { parseCli } from '../src/cli/args.js';

const proxiesOf = (/** @type {number} */ n) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, url: `http://127.0.0.1:9/p${i}` }));
const quiet = { warn() {} };

describe('source limit: at most MAX_SOURCES proxies per download', () => {
  it('the client limit is the wire limit (32)', () => {
    assert.equal(MAX_SOURCES, 32);
    assert.equal(MAX_PROXIES, MAX_SOURCES);
  });

  for (const mode of /** @type {const} */ (['coded', 'uncoded'])) {
    it(`downloadMutp (${mode}) with ${MAX_SOURCES + 1} proxies: a promise rejected with ERR_BAD_OPTION, no synchronous throw`, async () => {
      let p;
      assert.doesNotThrow(() => { p = downloadMutp({ url: 'http://origin.test/x', mode, proxies: proxiesOf(MAX_SOURCES + 1), logger: quiet }); });
      await assert.rejects(/** @type {any} */ (p), (/** @type {any} */ e) => e.code === 'ERR_BAD_OPTION' && /at most 32/.test(e.message));
    });

    it(`downloadMutp (${mode}) with exactly ${MAX_SOURCES} proxies passes the check (aborted before connecting)`, async () => {
      const signal = AbortSignal.abort();
      await assert.rejects(downloadMutp({ url: 'http://origin.test/x', mode, proxies: proxiesOf(MAX_SOURCES), signal, logger: quiet }),
        (/** @type {any} */ e) => e.code === 'ERR_ABORTED');
    });
  }

  it(`client.download refuses ${MAX_PROXIES + 1} proxies in every mode, given as a list or a count`, async () => {
    const client = createClient({ logger: quiet });
    try {
      for (const mode of ['coded', 'uncoded', 'parallel-http', 'range-http']) {
        for (const proxies of [proxiesOf(MAX_PROXIES + 1), MAX_PROXIES + 1]) {
          await assert.rejects(client.download('http://origin.test/x', { mode, proxies, log: false }),
            (/** @type {any} */ e) => e.code === 'ERR_BAD_OPTION', `${mode}, ${Array.isArray(proxies) ? 'list' : 'count'}`);
        }
      }
    } finally {
      client.close();
    }
  });

  it('a logged URL is cut at the one URL limit Origo stores (8192 characters), not shorter', () => {
    const long = `http://h/${'a'.repeat(5000)}`;
    assert.equal(redactUrl(long), long);
    assert.equal(redactUrl(`http://h/${'a'.repeat(MAX_URL_CHARS)}`).length, MAX_URL_CHARS);
    assert.equal(MAX_URL_CHARS, 8192);
  });

  it('the CLI takes --proxies up to the same limit', () => {
    assert.equal(/** @type {any} */ (parseCli(['get', 'http://h/x', '--proxies', String(MAX_PROXIES)], {})).proxies, MAX_PROXIES);
    assert.throws(() => parseCli(['get', 'http://h/x', '--proxies', String(MAX_PROXIES + 1)], {}));
  });
});
