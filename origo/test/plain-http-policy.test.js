// Origo offers a proxy only at a public URL browsers can use from HTTPS pages: https://, or
// plain http:// on loopback or private addresses (npm start, the testbed), unless a lab allows it.
import assert from 'node:assert/strict';
import { notOfferedReason, isLocalHost, PLAIN_HTTP_REASON } from '../src/registry/public-url-policy.js';
import { FleetView } from '../src/admin/fleet-view.js';
import { connectGoodProxy, eventually, getProxies, proxyStatus, startTestOrigo } from './helpers.js';

const STRICT = { allowPlainHttp: false };

describe('origo: which proxy public URLs are offered', () => {
  it('offers https:// anywhere, and http:// only on loopback and private addresses', () => {
    for (const url of ['https://198.51.100.2:8090', 'https://proxy-1.example.net', 'http://127.0.0.1:8091', 'http://127.9.9.9:1', 'http://localhost:8090',
      'http://a.localhost', 'http://10.219.1.2:8090', 'http://172.16.5.5', 'http://192.168.1.20:8090', 'http://169.254.1.1', 'http://100.64.0.9',
      'http://[::1]:8090', 'http://[fd00::5]', 'http://[fe80::1]', 'http://[::ffff:127.0.0.1]:8090', 'http://[::ffff:10.0.0.1]']) {
      assert.equal(notOfferedReason(url, STRICT), null, url);
    }
    for (const url of ['http://198.51.100.2:8090', 'http://8.8.8.8', 'http://172.32.0.1', 'http://proxy-1.example.net:8090', 'http://[2001:db8::1]',
      'http://[::ffff:198.51.100.2]', 'http://localhost.example.com']) {
      assert.equal(notOfferedReason(url, STRICT), PLAIN_HTTP_REASON, url);
    }
    assert.equal(notOfferedReason('http://198.51.100.2:8090', { allowPlainHttp: true }), null, 'a lab may allow it');
    assert.equal(isLocalHost('LOCALHOST.'), true);
  });

  it('the fleet view says why a proxy is not offered', () => {
    const view = new FleetView(STRICT);
    const at = 1_700_000_000_000;
    const plain = view.status(/** @type {any} */ (proxyStatus('plain', { publicUrl: 'http://198.51.100.2:8090' })), at);
    assert.equal(plain.notOffered, PLAIN_HTTP_REASON);
    assert.equal(view.status(/** @type {any} */ (proxyStatus('tls', { publicUrl: 'https://198.51.100.2:8090' })), at).notOffered, null);
    assert.equal(new FleetView({ allowPlainHttp: true }).status(/** @type {any} */ (proxyStatus('plain', { publicUrl: 'http://198.51.100.2:8090' })), at).notOffered, null);
  });

  for (const allowPlainHttpProxies of [false, true]) {
    it(`GET /api/proxies and /api/tickets ${allowPlainHttpProxies ? 'offer every proxy when the lab allows plain HTTP' : 'leave out a plain-HTTP proxy on a public address, with one warning'}`, async () => {
      const origo = await startTestOrigo({ allowPlainHttpProxies, allowPrivateProxyUrls: true }); // 127.0.0.1: a local fleet
      const urls = { tls: 'https://p2.fleet.example:8443', local: 'http://127.0.0.1:8091', plain: 'http://p3.fleet.example:8090' };
      const sockets = [];
      try {
        for (const [id, publicUrl] of Object.entries(urls)) {
          const s = await connectGoodProxy(origo.url, id);
          s.emit('status', proxyStatus(id, { publicUrl }));
          s.emit('status', proxyStatus(id, { publicUrl })); // a second status: still one warning
          sockets.push(s);
        }
        const want = allowPlainHttpProxies ? ['local', 'plain', 'tls'] : ['local', 'tls'];
        const listed = await eventually(async () => {
          const ids = (await getProxies(origo.url, '?n=64')).body.proxies.map((p) => p.id).sort();
          return ids.length === want.length && ids;
        });
        assert.deepEqual(listed, want);
        const res = await fetch(`${origo.url}/api/tickets?clientId=c1&ids=tls,local,plain`);
        assert.deepEqual((await res.json()).tickets.map((t) => t.proxyId).sort(), want);
        const warnings = origo.logger.lines.filter((l) => l.level === 'warn' && l.msg === 'proxy not offered to clients');
        assert.deepEqual(warnings.map((w) => [w.fields.proxyId, w.fields.publicUrl]), allowPlainHttpProxies ? [] : [['plain', urls.plain]]);
      } finally {
        for (const s of sockets) s.close();
        await origo.close();
      }
    });
  }
});
