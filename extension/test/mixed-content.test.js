// Plain-HTTP endpoints under the mixed-content rule: refused up front (no request made), with
// ERR_MIXED_CONTENT_BLOCKED in the page's fallback and in a record Origo stores and counts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@mutp/proxyclientlib';
import { createRequestServer } from '../src/frame/serve-requests.js';
import { compilePatterns } from '../src/shared/patterns.js';
import { MIXED_CONTENT_CODE, insecureEndpointNotes, isInsecureUrl, mixedContentGuard } from '../src/shared/mixed-content.js';
import { connectGoodProxy, eventually, getProxies, postLogs, proxyStatus, startTestOrigo } from '@mutp/origo/test-helpers';

const MODULE = fileURLToPath(new URL('../src/shared/mixed-content.js', import.meta.url));
const quiet = { warn: () => {} };
// names, as deployments advertise: Origo never offers a reserved (TEST-NET) address literal
const PUBLIC_PLAIN = ['http://p7.fleet.example:8090', 'http://p8.fleet.example:8090'];
/** @type {import('../src/shared/settings.js').Settings} */
const settings = { enabled: true, origoUrl: 'http://198.51.100.2:8080', patterns: ['origin.test/media/*'], mode: /** @type {const} */ ('parallel-http'), n: 2, randomModes: [], randomN: [], proximity: false, location: null, noProgressTimeoutMs: 2500, detect: 'off', sites: [], denySites: [] };

/** A fetch that records every URL it is asked for and answers nothing useful. */
function spyFetch() {
  const urls = [];
  const f = /** @type {typeof fetch} */ (async (input) => { urls.push(String(input)); throw new TypeError('the test network is closed'); });
  return { f, urls };
}

describe('extension: plain-HTTP endpoints under the mixed-content rule', function () {
  this.timeout(30_000);

  it('only http:// to a non-loopback host is insecure', () => {
    for (const u of ['http://198.51.100.2:8080', 'http://10.219.1.2:8090', 'http://origo.example', 'http://[2001:db8::1]/']) assert.equal(isInsecureUrl(u), true, u);
    for (const u of ['https://198.51.100.2:8080', 'http://127.0.0.1:8080', 'http://127.3.2.1', 'http://localhost:8080', 'http://x.localhost', 'http://[::1]:1', 'not a url']) {
      assert.equal(isInsecureUrl(u), false, u);
    }
    assert.deepEqual(mixedContentGuard(true)('http://198.51.100.2:8080/api/proxies')?.code, MIXED_CONTENT_CODE);
    assert.equal(mixedContentGuard(true)('https://198.51.100.2:8080/'), null);
    assert.equal(mixedContentGuard(false)('http://198.51.100.2:8080/'), null, 'not under the rule: nothing refused');
  });

  it('the frame is under the rule only in the Chromium build, framed, in a secure context (the HTTPS page)', () => {
    const probe = `import { frameUnderMixedContentRule as f } from ${JSON.stringify(MODULE)};
      const top = { isSecureContext: true }; top.parent = top;
      console.log(JSON.stringify([f({ parent: {}, isSecureContext: true }), f({ parent: {}, isSecureContext: false }), f(top)]));`;
    const run = (/** @type {string[]} */ flags) => JSON.parse(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { encoding: 'utf8' }));
    assert.deepEqual(run(['--conditions=chromium']), [true, false, false], 'Chromium: under an HTTPS page only');
    assert.deepEqual(run([]), [false, false, false], 'Firefox (the default build): never');
  });

  it('a plain-HTTP Origo: no request at all, the page falls back with ERR_MIXED_CONTENT_BLOCKED, and the record (N, no proxies) is one Origo accepts', async () => {
    const { f, urls } = spyFetch();
    const client = createClient({ origo: 'http://198.51.100.2:8080', fetch: f, logger: quiet, blocked: mixedContentGuard(true) });
    const posted = [];
    const toBackground = [];
    const server = createRequestServer({
      state: () => ({ settings, matches: compilePatterns(settings.patterns), client }),
      port: { postMessage: (m) => posted.push(m) }, toBackground: (m) => toBackground.push(m), logger: quiet,
    });
    server.onPageMessage({ t: 'get', id: 1, url: 'http://origin.test/media/demo-1MB.bin', range: null });
    await eventually(async () => posted.some((m) => m.t === 'fail'));
    client.close();
    assert.deepEqual(urls, [], 'nothing was tried');
    assert.equal(posted.find((m) => m.t === 'fail').code, MIXED_CONTENT_CODE);
    const records = toBackground.filter((m) => m.t === 'record');
    assert.equal(records.length, 1, 'the frame sends the record to the background (which reaches Origo: it is not under the rule)');
    const record = records[0].record;
    assert.deepEqual([record.n, record.proxyIds, record.error.code], [2, [], MIXED_CONTENT_CODE]);
    const origo = await startTestOrigo();
    try {
      assert.equal((await postLogs(origo.url, [record])).status, 200);
      const [stored] = await origo.store.listClientRecords({ limit: 10 });
      assert.equal(stored.error.code, MIXED_CONTENT_CODE);
    } finally {
      await origo.close();
    }
  });

  it('asking a plain-HTTP Origo for its proxy list (the frame\'s cached list, the warm-up) is refused up front too', async () => {
    const { f, urls } = spyFetch();
    const client = createClient({ origo: 'http://198.51.100.2:8080', fetch: f, logger: quiet, blocked: mixedContentGuard(true) });
    await assert.rejects(client.proxies({ n: 4 }), { code: MIXED_CONTENT_CODE });
    client.close();
    assert.deepEqual(urls, [], 'nothing was tried');
  });

  it('a reachable Origo offering plain-HTTP proxies (a lab that allows them): none is tried, and Origo stores the refusal under their ids', async () => {
    const origo = await startTestOrigo({ allowPlainHttpProxies: true });
    const sockets = [];
    try {
      for (const [i, publicUrl] of PUBLIC_PLAIN.entries()) {
        const s = await connectGoodProxy(origo.url, `plain-${i}`);
        s.emit('status', proxyStatus(`plain-${i}`, { publicUrl }));
        sockets.push(s);
      }
      await eventually(async () => (await getProxies(origo.url)).body.proxies.length === PUBLIC_PLAIN.length);
      const asked = [];
      const f = /** @type {typeof fetch} */ ((input, init) => { asked.push(String(input)); return fetch(input, init); });
      // Origo is on loopback here (never blocked); its proxies are not
      const client = createClient({ origo: origo.url, fetch: f, logger: quiet, blocked: mixedContentGuard(true) });
      const err = await client.download('http://origin.test/media/demo-1MB.bin', { mode: 'coded', proxies: 2 }).catch((e) => e);
      assert.equal(err.code, MIXED_CONTENT_CODE);
      assert.deepEqual(asked.filter((u) => !u.startsWith(origo.url)), [], 'no proxy was tried');
      assert.equal(await client.flushLogs(10_000), true);
      client.close();
      const [stored] = await origo.store.listClientRecords({ limit: 10 });
      assert.equal(stored.error.code, MIXED_CONTENT_CODE);
      assert.deepEqual([...stored.proxyIds].sort(), ['plain-0', 'plain-1']);
    } finally {
      for (const s of sockets) s.close();
      await origo.close();
    }
  });

  it('the options page and popup notes name the plain-HTTP Origo and proxies', () => {
    const notes = insecureEndpointNotes({ origoUrl: 'http://198.51.100.2:8080', proxyUrls: ['https://p1.example', ...PUBLIC_PLAIN, 'http://127.0.0.1:8091'] });
    assert.equal(notes.length, 2);
    assert.match(notes[0], /^Origo http:\/\/198\.51\.100\.2:8080 is plain HTTP: Firefox allows it, but tickets/);
    assert.match(notes[1], /^2 proxies are plain HTTP \(http:\/\/p7\.fleet\.example:8090, http:\/\/p8\.fleet\.example:8090\)/);
    assert.deepEqual(insecureEndpointNotes({ origoUrl: 'https://origo.example', proxyUrls: ['https://p1.example', 'http://localhost:1'] }), []);
  });
});
