// --rtc-ports: the UDP ports the proxy's WebRTC uses. One port is shared by every peer (ICE UDP
// mux), so a firewall in front of the proxy opens one port; a range gives each peer connection a
// port of its own, and the proxy takes no more peers than the range has ports.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { RTCPeerConnection } from 'node-datachannel/polyfill';
import { startProxy } from '../index.js';
import { configFromCli } from '../src/config/cli-config.js';
import { resolveConfig } from '../src/config/resolve-config.js';
import { parseRtcPorts, rtcPortOptions } from '../src/rtc/ports.js';
import { connectPeer } from '@mutp/proxyclientlib/connect-peer';
import { createClient } from '@mutp/proxyclientlib';
import { startOrigin, testBytes, captureLogger } from '@mutp/testkit/local-origin';
import { LOOPBACK_RTC } from '@mutp/testkit/mutp-harness';

/** Free UDP ports on loopback, `count` in a row (none of them bound when this returns). @param {number} count */
async function freeUdpPorts(count) {
  for (;;) {
    const s = dgram.createSocket('udp4');
    await new Promise((r) => s.bind(0, '127.0.0.1', () => r(undefined)));
    const first = s.address().port;
    s.close();
    if (first + count > 65535) continue;
    const probes = [];
    let ok = true;
    for (let p = first; p < first + count && ok; p++) {
      const t = dgram.createSocket('udp4');
      ok = await new Promise((r) => { t.once('error', () => r(false)); t.bind(p, '127.0.0.1', () => r(true)); });
      probes.push(t);
    }
    for (const t of probes) t.close();
    if (ok) return first;
  }
}

/** The UDP ports of the host candidates in the proxy's answer. @param {import('@mutp/proxyclientlib/connect-peer').PeerLink} peer */
const answerPorts = (peer) => /** @type {RTCSessionDescription} */ (peer.pc.remoteDescription).sdp.split(/\r?\n/)
  .filter((l) => l.startsWith('a=candidate:') && / udp /i.test(l)).map((l) => Number(l.split(' ')[5]));

describe('proxy: --rtc-ports (the UDP ports of its WebRTC)', function () {
  this.timeout(30_000);

  it('takes PORT or FIRST-LAST, and refuses anything else with ERR_BAD_CONFIG', () => {
    assert.deepEqual(parseRtcPorts('50000'), { first: 50000, last: 50000 });
    assert.deepEqual(parseRtcPorts(' 50000-50099 '), { first: 50000, last: 50099 });
    for (const bad of ['', '0', '65536', '50010-50000', 'x', '5000-', '-5000', '1.5', '50000-50001-50002']) {
      assert.throws(() => parseRtcPorts(bad), { code: 'ERR_BAD_CONFIG' }, bad);
    }
    const fromCli = (/** @type {string[]} */ argv, env = {}) => resolveConfig(/** @type {any} */ (configFromCli(['--no-require-tickets', ...argv], env)).config);
    assert.deepEqual(fromCli(['--rtc-ports', '40000-40009']).rtcPorts, { first: 40000, last: 40009 });
    assert.deepEqual(fromCli([], { PROXY_RTC_PORTS: '40001' }).rtcPorts, { first: 40001, last: 40001 });
    assert.equal(fromCli([]).rtcPorts, null);
    assert.throws(() => fromCli(['--rtc-ports', '9-1']), { code: 'ERR_BAD_CONFIG' });
    const one = rtcPortOptions({ first: 7, last: 7 });
    assert.deepEqual([one.rtcConfig, one.maxPeers], [{ portRangeBegin: 7, portRangeEnd: 7, enableIceUdpMux: true }, Infinity]);
    assert.equal(rtcPortOptions({ first: 7, last: 9 }).maxPeers, 3);
  });

  describe('on a real proxy', () => {
    const data = testBytes(600_000);
    /** @type {Awaited<ReturnType<typeof startOrigin>>} */ let origin;
    before(async () => {
      origin = await startOrigin((_req, res) => res.writeHead(200, { 'content-type': 'video/iso.segment' }).end(data));
    });
    after(async () => { await origin?.close(); });

    /** @param {string} rtcPorts */
    const proxyOn = (rtcPorts) => startProxy({ host: '127.0.0.1', allowedHosts: [`127.0.0.1:${origin.port}`], allowPrivate: true, rtcPorts, logger: captureLogger().logger });

    it('one port: every peer connection answers on it, and coded downloads through two clients at once are byte-exact', async () => {
      const port = await freeUdpPorts(1);
      const proxy = await proxyOn(String(port));
      const peers = [];
      try {
        for (let i = 0; i < 3; i++) peers.push(await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC }));
        for (const p of peers) {
          const ports = answerPorts(p);
          assert.ok(ports.length > 0, 'the answer has host candidates');
          assert.deepEqual([...new Set(ports)], [port]);
        }
        const clients = [createClient({ origo: null, logger: { warn() {} } }), createClient({ origo: null, logger: { warn() {} } })];
        try {
          const got = await Promise.all(clients.map((c, i) => c.download(`${origin.url}/seg-${i}.m4s`, { mode: 'coded', proxies: [{ id: 'p', url: proxy.url }] })));
          for (const g of got) assert.ok(Buffer.from(g.data).equals(data), 'byte-exact');
        } finally {
          for (const c of clients) c.close();
        }
      } finally {
        for (const p of peers) p.close();
        await proxy.close();
      }
    });

    it('a range: each peer connection on a port of its own within it; one more is refused with 503 ERR_PROXY_BUSY', async () => {
      const first = await freeUdpPorts(2);
      const proxy = await proxyOn(`${first}-${first + 1}`);
      const peers = [];
      try {
        for (let i = 0; i < 2; i++) peers.push(await connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC }));
        const used = peers.map((p) => [...new Set(answerPorts(p))]);
        for (const u of used) assert.equal(u.length, 1);
        assert.deepEqual(used.flat().sort(), [first, first + 1]);
        await assert.rejects(connectPeer({ url: proxy.url, RTCPeerConnection, rtcConfig: LOOPBACK_RTC, timeoutMs: 3000 }),
          (/** @type {any} */ e) => e.code === 'ERR_RTC_SIGNAL_HTTP' && e.remoteCode === 'ERR_PROXY_BUSY');
      } finally {
        for (const p of peers) p.close();
        await proxy.close();
      }
    });
  });
});
