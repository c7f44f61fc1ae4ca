// The CLI's fetch for Origo's requests (node:http, one kept connection): what fetch would answer,
// its refusals as fetch gives them, and every other request left to fetch.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { makeTestCa, issueLeaf } from '@mutp/testkit/test-ca';
import { createKeptFetch } from '../src/cli/kept-fetch.js';
import { fetchProxyList } from '../src/origo-api.js';
import { jsonCapped } from '../src/capped-body.js';

const KEPT_FETCH = fileURLToPath(new URL('../src/cli/kept-fetch.js', import.meta.url));
const quiet = { warn() {} };

const BIG_BYTES = 1 << 20; // a proxy's range: many reads, more than one TCP window
const bigBody = () => Uint8Array.from({ length: BIG_BYTES }, (_, i) => (i * 7 + (i >> 10)) & 0xff);

/** /big: BIG_BYTES in 64 KiB writes, as a proxy streams a range. @param {http.ServerResponse} res */
function sendBig(res) {
  const body = bigBody();
  res.writeHead(200, { 'content-length': String(BIG_BYTES) });
  for (let at = 0; at < BIG_BYTES; at += 65536) res.write(body.subarray(at, at + 65536));
  res.end();
}

/**
 * An Origo stand-in (or a proxy's): GET /api/proxies answers a list, POST /api/logs echoes what it got,
 * /slow never answers, /moved redirects, /empty is 204, /big is BIG_BYTES. Counts its TCP connections.
 * @param {typeof http | typeof https} lib @param {object} [options]
 */
async function standIn(lib = http, options = {}) {
  const seen = { connections: 0, acceptedAt: /** @type {number[]} */ ([]), requests: /** @type {{method: string, url: string, headers: http.IncomingHttpHeaders, body: string}[]} */ ([]) };
  const server = /** @type {typeof http} */ (lib).createServer(options, (req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.requests.push({ method: String(req.method), url: String(req.url), headers: req.headers, body });
      if (req.url === '/slow') return;
      if (req.url === '/moved') return void res.writeHead(302, { location: '/elsewhere' }).end();
      if (req.url === '/empty') return void res.writeHead(204).end();
      if (req.url === '/big') return void sendBig(res);
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-answer', 'yes');
      if (req.url?.startsWith('/api/proxies')) return void res.end(JSON.stringify({ proxies: [{ id: 'p1', url: 'http://127.0.0.1:9/', ticket: 'abc' }] }));
      res.writeHead(req.method === 'POST' ? 200 : 404).end(JSON.stringify({ got: body, type: req.headers['content-type'] ?? null }));
    });
  });
  server.on('connection', () => { seen.connections++; seen.acceptedAt.push(performance.now()); });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const url = `${lib === https ? 'https' : 'http'}://127.0.0.1:${port}`;
  return { url, seen, dropConnections: () => server.closeAllConnections(), close: () => { server.closeAllConnections(); return new Promise((r) => server.close(() => r(undefined))); } };
}

describe('the CLI\'s fetch for Origo', () => {
  /** @type {Awaited<ReturnType<typeof standIn>>} */
  let origo;
  beforeEach(async () => { origo = await standIn(); });
  afterEach(() => origo.close());

  it('the proxy list, then a record, on one kept connection: what fetch would answer', async () => {
    const link = createKeptFetch(origo.url, { fallback: () => assert.fail('Origo\'s requests are not fetch\'s') });
    try {
      const list = await fetchProxyList({ origo: origo.url, fetch: link.fetch, logger: quiet, clientId: 'c1', n: 4 });
      assert.deepEqual(list.map((p) => [p.id, p.ticket]), [['p1', 'abc']]);
      const record = new TextEncoder().encode('[{"id":"r1"}]');
      const res = await link.fetch(`${origo.url}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: record });
      assert.equal(res.status, 200);
      assert.equal(res.ok, true);
      assert.equal(res.headers.get('x-answer'), 'yes');
      assert.deepEqual(await jsonCapped(res, 1024), { got: '[{"id":"r1"}]', type: 'application/json' });
      const text = await link.fetch(new URL('/api/logs', origo.url), { method: 'POST', body: 'plain' });
      assert.deepEqual(await text.json(), { got: 'plain', type: null });
      const missing = await link.fetch(`${origo.url}/nothing`);
      assert.equal(missing.status, 404);
      assert.equal(missing.ok, false);
      await missing.arrayBuffer();
      assert.deepEqual(origo.seen.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`), ['GET /api/proxies', 'POST /api/logs', 'POST /api/logs', 'GET /nothing']);
      assert.equal(origo.seen.requests[1].headers['content-length'], String(record.byteLength));
      assert.equal(origo.seen.connections, 1, 'every request on the first connection');
    } finally {
      link.close();
    }
  });

  it('a 204 has no body', async () => {
    const link = createKeptFetch(origo.url);
    try {
      const res = await link.fetch(`${origo.url}/empty`);
      assert.equal(res.status, 204);
      assert.equal(res.body, null);
    } finally {
      link.close();
    }
  });

  it('other origins, other kinds of body and redirects go to fetch', async () => {
    /** @type {string[]} */
    const fallen = [];
    const link = createKeptFetch(origo.url, { fallback: async (input) => { fallen.push(String(input)); return new Response('from fetch'); } });
    try {
      assert.equal(await (await link.fetch('http://127.0.0.1:9/x')).text(), 'from fetch');
      assert.equal(await (await link.fetch(`${origo.url}/api/logs`, { method: 'POST', body: new Blob(['b']) })).text(), 'from fetch');
      assert.equal(await (await link.fetch(`${origo.url}/moved`)).text(), 'from fetch');
      assert.deepEqual(fallen, ['http://127.0.0.1:9/x', `${origo.url}/api/logs`, `${origo.url}/moved`]);
      assert.deepEqual(origo.seen.requests.map((r) => r.url), ['/moved'], 'only the redirect reached Origo');
    } finally {
      link.close();
    }
  });

  it('refuses as fetch does: the signal\'s reason, a TypeError naming the network error, ERR_ORIGO_UNREACHABLE', async () => {
    const link = createKeptFetch(origo.url);
    try {
      await assert.rejects(link.fetch(`${origo.url}/slow`, { signal: AbortSignal.timeout(50) }), { name: 'TimeoutError' });
    } finally {
      link.close();
    }
    const port = await new Promise((resolve) => {
      const s = netServer().listen(0, '127.0.0.1', () => { const p = /** @type {import('node:net').AddressInfo} */ (s.address()).port; s.close(() => resolve(p)); });
    });
    const gone = `http://127.0.0.1:${port}`;
    const dead = createKeptFetch(gone);
    try {
      await assert.rejects(dead.fetch(`${gone}/api/proxies`), (err) => err instanceof TypeError && /** @type {any} */ (err).cause?.code === 'ECONNREFUSED');
      await assert.rejects(fetchProxyList({ origo: gone, fetch: dead.fetch, logger: quiet }), { code: 'ERR_ORIGO_UNREACHABLE', message: /ECONNREFUSED/ });
    } finally {
      dead.close();
    }
  });

  it('a hand-off resolves once the request is written, before any answer; TCP delivers all of it after the process exits', async () => {
    const link = createKeptFetch(origo.url);
    try {
      assert.equal(await link.handOff(`${origo.url}/slow`, '{"a":1}'), true, 'written, though /slow never answers');
      assert.equal(await link.handOff('http://127.0.0.1:9/api/logs', '[]'), false, 'not an origin of its connections');
    } finally {
      link.close();
    }
    // a body far larger than what node:http writes at once, and a process that exits the moment it is handed off
    const body = JSON.stringify({ fill: 'x'.repeat(4 << 20) });
    const script = `import { createKeptFetch } from ${JSON.stringify(KEPT_FETCH)};
      const link = createKeptFetch(process.argv[1]);
      const ok = await link.handOff(process.argv[1] + '/slow', JSON.stringify({ fill: 'x'.repeat(4 << 20) }));
      link.close();
      process.stdout.write(String(ok));
      process.exit(0);`;
    const out = await new Promise((resolve, reject) => execFile(process.execPath, ['--input-type=module', '-e', script, origo.url], { timeout: 10_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
    assert.equal(out, 'true');
    for (let i = 0; i < 500 && origo.seen.requests.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(origo.seen.requests.length, 2);
    const got = origo.seen.requests[1];
    assert.equal(got.headers['content-type'], 'application/json');
    assert.ok(got.body === body, `the whole body arrived (${got.body.length} of ${body.length} B)`);
    const gone = await new Promise((resolve) => {
      const s = netServer().listen(0, '127.0.0.1', () => { const p = /** @type {import('node:net').AddressInfo} */ (s.address()).port; s.close(() => resolve(`http://127.0.0.1:${p}`)); });
    });
    const dead = createKeptFetch(/** @type {string} */ (gone));
    try {
      assert.equal(await dead.handOff(`${gone}/api/logs`, '[]'), false, 'a refused connection');
    } finally {
      dead.close();
    }
  });

  it('a proxy connected to ahead: its requests take that connection, a body read to its announced end leaves it for the next', async () => {
    const proxy = await standIn();
    const link = createKeptFetch(origo.url, { fallback: () => assert.fail('a preconnected proxy\'s requests are not fetch\'s') });
    try {
      link.preconnect(`${proxy.url}/`);
      for (let i = 0; i < 100 && proxy.seen.connections === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const askedAt = performance.now();
      for (let round = 0; round < 2; round++) {
        const res = await link.fetch(`${proxy.url}/big`);
        assert.equal(res.status, 200);
        // as proxyFetch reads: stop at the announced length, give node:http a turn, ask again
        const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (res.body?.getReader());
        const chunks = [];
        let got = 0;
        while (got < BIG_BYTES) {
          const { value, done } = await reader.read();
          if (done) break;
          chunks.push(value);
          got += value.byteLength;
        }
        reader.releaseLock();
        assert.deepEqual(Buffer.concat(chunks), Buffer.from(bigBody()), 'byte-exact');
        await new Promise((r) => setImmediate(r));
      }
      assert.equal(proxy.seen.connections, 1, 'both requests on the connection opened ahead');
      assert.ok(proxy.seen.acceptedAt[0] < askedAt, 'accepted before the first request was asked');
      assert.equal(origo.seen.connections, 0);
    } finally {
      link.close();
      await proxy.close();
    }
  });

  it('a connection opened ahead that the proxy dropped is not used; one never used does not hold the process', async () => {
    const proxy = await standIn();
    const link = createKeptFetch(origo.url);
    try {
      link.preconnect(proxy.url);
      for (let i = 0; i < 100 && proxy.seen.connections === 0; i++) await new Promise((r) => setTimeout(r, 10));
      proxy.dropConnections();
      await new Promise((r) => setTimeout(r, 50));
      const res = await link.fetch(`${proxy.url}/api/proxies`);
      assert.equal(res.status, 200);
      assert.equal((await res.json()).proxies.length, 1);
      assert.equal(proxy.seen.connections, 2, 'a new connection for the request');
    } finally {
      link.close();
    }
    const script = `import { createKeptFetch } from ${JSON.stringify(KEPT_FETCH)};
      createKeptFetch(process.argv[1]).preconnect(process.argv[2]);`;
    const started = performance.now();
    const r = await new Promise((resolve) => execFile(process.execPath, ['--input-type=module', '-e', script, origo.url, proxy.url], { timeout: 5000 }, (err) => resolve(err)));
    assert.equal(r, null, 'the process ended by itself');
    assert.ok(performance.now() - started < 4000);
    await proxy.close();
  });

  it('an https Origo and an https proxy connected to ahead, trusted as fetch trusts them (NODE_EXTRA_CA_CERTS): one connection each', async function () {
    this.timeout(20_000);
    const dir = await mkdtemp(path.join(tmpdir(), 'origo-fetch-'));
    try {
      const ca = await makeTestCa(dir);
      const leaf = await issueLeaf(ca, 'origo', ['127.0.0.1']);
      const secure = await standIn(https, { cert: readFileSync(leaf.certFile), key: readFileSync(leaf.keyFile) });
      try {
        const proxy = await standIn(https, { cert: readFileSync(leaf.certFile), key: readFileSync(leaf.keyFile) });
        const script = `import { createKeptFetch } from ${JSON.stringify(KEPT_FETCH)};
          const link = createKeptFetch(process.argv[1]);
          const a = await link.fetch(process.argv[1] + '/api/proxies');
          const listed = (await a.json()).proxies.length;
          const b = await link.fetch(process.argv[1] + '/api/logs', { method: 'POST', body: 'r' });
          link.preconnect(process.argv[2]); // an https proxy: TLS opened ahead, then its request on it
          await new Promise((r) => setTimeout(r, 300));
          const c = await link.fetch(process.argv[2] + '/api/logs', { method: 'POST', body: 'p' });
          console.log(JSON.stringify([a.status, listed, await b.json(), await c.json()]));
          link.close();`;
        // asynchronous: the server answers from this process
        const r = await new Promise((resolve) => execFile(process.execPath, ['--input-type=module', '-e', script, secure.url, proxy.url],
          { env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.certFile } }, (err, stdout, stderr) => resolve({ err, stdout, stderr })));
        const { err, stdout, stderr } = /** @type {any} */ (r);
        assert.equal(err, null, stderr);
        assert.deepEqual(JSON.parse(stdout), [200, 1, { got: 'r', type: null }, { got: 'p', type: null }]);
        assert.equal(secure.seen.connections, 1);
        assert.equal(proxy.seen.connections, 1, 'the proxy\'s request on the TLS connection opened ahead');
        await proxy.close();
      } finally {
        await secure.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
