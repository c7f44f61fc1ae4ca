// Every SSRF target class (loopback, private, link-local and metadata addresses, …), each refused over HTTP GET /fetch with its code.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startProxy } from '../index.js';
import { startOrigin, captureLogger } from '@mutp/testkit/local-origin';

/** @param {string} proxyUrl @param {string} target */
async function fetchVia(proxyUrl, target) {
  const res = await fetch(`${proxyUrl}/fetch?url=${encodeURIComponent(target)}`);
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.arrayBuffer();
  return { status: res.status, body: /** @type {any} */ (body) };
}

describe('proxy /fetch: SSRF guard in default config', () => {
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;

  before(async () => {
    origin = await startOrigin((_req, res) => res.end('secret'));
    // Default config: no allowPrivate; `localhost:<port>` is allowlisted so the DNS check is reached.
    proxy = await startProxy({ allowedHosts: [`localhost:${origin.port}`], logger: captureLogger().logger });
  });
  after(async () => {
    await proxy?.close();
    await origin?.close();
  });

  const cases = [
    ['http://127.0.0.1/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://[::1]/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://[::ffff:127.0.0.1]/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://0.0.0.0/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://169.254.169.254/latest/meta-data/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://[fd00:ec2::254]/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://2130706433/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://10.0.0.1/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://100.64.0.1/', 403, 'ERR_SSRF_BLOCKED'],
    ['http://not-allowed.example/video', 403, 'ERR_HOST_NOT_ALLOWED'],
    ['gopher://r1.googlevideo.com/', 400, 'ERR_BAD_URL'],
  ];
  for (const [target, status, code] of cases) {
    it(`refuses ${target} with ${code}`, async () => {
      const r = await fetchVia(proxy.url, /** @type {string} */ (target));
      assert.equal(r.status, status);
      assert.equal(r.body.error.code, code);
    });
  }

  it('refuses a DNS name that resolves to loopback (checked at connect time)', async () => {
    const r = await fetchVia(proxy.url, `http://localhost:${origin.port}/x`);
    assert.equal(r.status, 403);
    assert.equal(r.body.error.code, 'ERR_SSRF_BLOCKED');
    assert.equal(origin.hits(), 0, 'the origin must never be contacted');
  });

  it('refuses a missing or repeated url parameter with ERR_BAD_QUERY', async () => {
    for (const q of ['', '?url=', '?url=a&url=b', '?url=http%3A%2F%2Fx.googlevideo.com%2F&n=9999']) {
      const res = await fetch(`${proxy.url}/fetch${q}`);
      assert.equal(res.status, 400, q);
      assert.equal((await res.json()).error.code, 'ERR_BAD_QUERY', q);
    }
  });
});

describe('proxy /fetch: redirects, caps and origin errors', () => {
  /** @type {Awaited<ReturnType<typeof startProxy>>} */ let proxy;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let allowed;
  /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let other;

  before(async () => {
    other = await startOrigin((_req, res) => res.end('other service'));
    allowed = await startOrigin((req, res) => {
      const path = req.url ?? '/';
      if (path === '/to-other-port') return res.writeHead(302, { location: `http://127.0.0.1:${other.port}/` }).end();
      if (path === '/to-metadata') return res.writeHead(301, { location: 'http://169.254.169.254/latest/' }).end();
      if (path === '/to-localhost') return res.writeHead(307, { location: `http://localhost:${other.port}/` }).end();
      if (path === '/to-ok') return res.writeHead(302, { location: '/ok' }).end();
      const loop = /^\/loop\/(\d+)$/.exec(path);
      if (loop) return res.writeHead(302, { location: `/loop/${Number(loop[1]) + 1}` }).end();
      const chain = /^\/chain\/(\d+)$/.exec(path);
      if (chain) return Number(chain[1]) === 0 ? res.end('end of chain') : res.writeHead(302, { location: `/chain/${Number(chain[1]) - 1}` }).end();
      if (path === '/ok') return res.end('fine');
      if (path === '/big') return res.end(Buffer.alloc(2000));
      if (path === '/big-chunked') {
        res.write(Buffer.alloc(1000));
        return res.end(Buffer.alloc(1000));
      }
      if (path === '/hang') return; // never answers
      if (path === '/missing') return res.writeHead(404).end('no');
      if (path === '/gzipped') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('fine'));
      if (path === '/identity-said') return res.writeHead(200, { 'content-encoding': 'identity' }).end('fine');
      res.writeHead(500).end();
    });
    proxy = await startProxy({
      allowPrivate: true, allowedHosts: [`127.0.0.1:${allowed.port}`], maxObjectBytes: 1500, originTimeoutMs: 300,
      logger: captureLogger().logger,
    });
  });
  after(async () => {
    await proxy?.close();
    await allowed?.close();
    await other?.close();
  });

  const cases = [
    ['/to-other-port', 403, 'ERR_HOST_NOT_ALLOWED'],
    ['/to-metadata', 403, 'ERR_SSRF_BLOCKED'],
    ['/to-localhost', 403, 'ERR_HOST_NOT_ALLOWED'],
    ['/loop/0', 502, 'ERR_TOO_MANY_REDIRECTS'],
    ['/big', 502, 'ERR_ORIGIN_TOO_LARGE'],
    ['/big-chunked', 502, 'ERR_ORIGIN_TOO_LARGE'],
    ['/hang', 504, 'ERR_ORIGIN_TIMEOUT'],
    ['/missing', 502, 'ERR_ORIGIN_STATUS'],
    ['/gzipped', 502, 'ERR_ORIGIN_ENCODED'], // asked for identity, it encoded anyway
  ];
  for (const [path, status, code] of cases) {
    it(`${path} → ${code}`, async () => {
      const r = await fetchVia(proxy.url, `http://127.0.0.1:${allowed.port}${path}`);
      assert.equal(r.status, status);
      assert.equal(r.body.error.code, code);
    });
  }

  it('never contacts the redirect target that is not allowed', () => {
    assert.equal(other.hits(), 0);
  });

  it('serves a body whose Content-Encoding says identity', async () => {
    const r = await fetchVia(proxy.url, `http://127.0.0.1:${allowed.port}/identity-said`);
    assert.equal(r.status, 200);
    assert.equal(Buffer.from(r.body).toString(), 'fine');
  });

  it('follows an allowed redirect and serves the final body', async () => {
    const r = await fetchVia(proxy.url, `http://127.0.0.1:${allowed.port}/to-ok`);
    assert.equal(r.status, 200);
    assert.equal(Buffer.from(r.body).toString(), 'fine');
  });

  it('follows exactly 5 redirects but not 6', async () => {
    const five = await fetchVia(proxy.url, `http://127.0.0.1:${allowed.port}/chain/5`);
    assert.equal(five.status, 200);
    assert.equal(Buffer.from(five.body).toString(), 'end of chain');
    const six = await fetchVia(proxy.url, `http://127.0.0.1:${allowed.port}/chain/6`);
    assert.equal(six.body.error.code, 'ERR_TOO_MANY_REDIRECTS');
  });
});
