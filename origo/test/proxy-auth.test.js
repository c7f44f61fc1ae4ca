import assert from 'node:assert/strict';
import { proxyToken, verifyProxyToken } from '../index.js';
import { SECRET, connectGoodProxy, connectProxy, eventually, getProxies, proxyStatus, startTestOrigo } from './helpers.js';

describe('origo: proxy tokens', () => {
  it('is HMAC-SHA256 in lowercase hex, bound to secret and id', () => {
    const t = proxyToken(SECRET, 'p1');
    assert.match(t, /^[0-9a-f]{64}$/);
    assert.notEqual(t, proxyToken(SECRET, 'p2'));
    assert.notEqual(t, proxyToken(`${SECRET}x`, 'p1'));
    assert.equal(verifyProxyToken(SECRET, 'p1', t), true);
    assert.equal(verifyProxyToken(SECRET, 'p2', t), false);
    assert.equal(verifyProxyToken(SECRET, 'p1', t.toUpperCase()), false);
    assert.equal(verifyProxyToken(SECRET, 'p1', t.slice(1)), false);
    assert.equal(verifyProxyToken(SECRET, 'p1', 42), false);
  });
});

describe('origo: /proxy namespace authentication', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  beforeEach(async () => { origo = await startTestOrigo(); });
  afterEach(async () => { await origo.close(); });

  it('refuses a wrong token, tells the proxy why, and logs id, address and reason', async () => {
    const err = await connectProxy(origo.url, { proxyId: 'evil-1', token: proxyToken('another-secret', 'evil-1') }).then(
      () => assert.fail('connected with a wrong token'),
      (e) => e,
    );
    assert.equal(err.message, 'ERR_AUTH_BAD_TOKEN');
    assert.deepEqual(err.data, { code: 'ERR_AUTH_BAD_TOKEN' });
    const warning = origo.logger.lines.find((l) => l.level === 'warn' && l.msg === 'proxy refused');
    assert.ok(warning, 'a warning is logged');
    assert.equal(warning.fields.proxyId, 'evil-1');
    assert.equal(warning.fields.code, 'ERR_AUTH_BAD_TOKEN');
    assert.match(warning.fields.address, /127\.0\.0\.1/);
    assert.deepEqual((await getProxies(origo.url)).body, { proxies: [] });
  });

  it('refuses a missing token with ERR_AUTH_MISSING', async () => {
    const err = await connectProxy(origo.url, { proxyId: 'p1' }).then(() => assert.fail('connected'), (e) => e);
    assert.equal(err.message, 'ERR_AUTH_MISSING');
    assert.deepEqual(err.data, { code: 'ERR_AUTH_MISSING' });
    assert.ok(origo.logger.lines.some((l) => l.level === 'warn' && l.fields?.code === 'ERR_AUTH_MISSING'));
  });

  it('registers a proxy with the right token; it is listed after its status and gone after disconnect', async () => {
    const socket = await connectGoodProxy(origo.url, 'p1');
    socket.emit('status', proxyStatus('p1', { publicUrl: 'http://127.0.0.1:9101/', location: { lat: 47.5, lon: 19.04 }, activeSessions: 3 }));
    const { body } = await eventually(async () => {
      const r = await getProxies(origo.url);
      return r.body.proxies.length ? r : null;
    });
    // Every listed proxy carries a client ticket (tested in ticket-api.test.js); the rest is exact.
    const listed = body.proxies.map((/** @type {any} */ { ticket, ticketExpiresAt, ...rest }) => {
      assert.match(ticket, /^t1\./);
      assert.ok(ticketExpiresAt > Date.now());
      return rest;
    });
    assert.deepEqual(listed, [
      { id: 'p1', url: 'http://127.0.0.1:9101/', location: { lat: 47.5, lon: 19.04 }, uploadRateBps: 917504, activeSessions: 3 },
    ]);
    socket.close();
    await eventually(async () => (await getProxies(origo.url)).body.proxies.length === 0);
  });

  it('ignores a status that claims another proxy id, or is malformed', async () => {
    const socket = await connectGoodProxy(origo.url, 'p1');
    socket.emit('status', proxyStatus('p2'));
    socket.emit('status', { proxyId: 'p1', publicUrl: 'file:///etc/passwd', activeSessions: 0, bytesSent: 0 });
    await eventually(async () => origo.logger.lines.filter((l) => l.msg === 'proxy status ignored').length === 2);
    assert.deepEqual((await getProxies(origo.url)).body, { proxies: [] });
    socket.close();
  });
});
