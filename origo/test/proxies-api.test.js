import assert from 'node:assert/strict';
import { haversineKm } from '../src/geo/haversine.js';
import { HTTP_IDLE_MS } from '../src/limits.js';
import { connectGoodProxy, eventually, getProxies, proxyStatus, startTestOrigo } from './helpers.js';

/** Kilometres per degree of longitude on the equator (same Earth radius as the code under test). */
const KM_PER_EQUATOR_DEGREE = (2 * Math.PI * 6371.0088) / 360;

describe('origo: haversine', () => {
  it('gives known great-circle distances', () => {
    const paris = { lat: 48.8566, lon: 2.3522 };
    const frankfurt = { lat: 50.1109, lon: 8.6821 };
    assert.ok(Math.abs(haversineKm(paris, frankfurt) - 479) < 5);
    assert.ok(Math.abs(haversineKm({ lat: 0, lon: 0 }, { lat: 0, lon: 180 }) - Math.PI * 6371.0088) < 1e-6);
    assert.equal(haversineKm(paris, paris), 0);
  });
});

describe('origo: GET /api/proxies', () => {
  /** @type {Awaited<ReturnType<typeof startTestOrigo>>} */
  let origo;
  /** @type {import('socket.io-client').Socket[]} */
  let sockets;
  const client = { lat: 0, lon: 0 };
  const fleet = [
    ['near', { lat: 0, lon: 2000 / KM_PER_EQUATOR_DEGREE }], // 2,000 km
    ['edge', { lat: 0, lon: 2990 / KM_PER_EQUATOR_DEGREE }], // just inside 3,000 km
    ['far', { lat: 0, lon: 5000 / KM_PER_EQUATOR_DEGREE }], // 5,000 km
    ['nowhere', null], // location unknown
    ['south', { lat: -1000 / KM_PER_EQUATOR_DEGREE, lon: 0 }], // 1,000 km
  ];

  before(async () => {
    origo = await startTestOrigo();
    sockets = [];
    for (const [id, location] of fleet) {
      const s = await connectGoodProxy(origo.url, /** @type {string} */ (id));
      s.emit('status', proxyStatus(/** @type {string} */ (id), { location }));
      sockets.push(s);
    }
    await eventually(async () => (await getProxies(origo.url)).body.proxies.length === fleet.length);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await origo.close();
  });

  it('without a location lists every live proxy', async () => {
    const { status, body } = await getProxies(origo.url);
    assert.equal(status, 200);
    assert.deepEqual(body.proxies.map((p) => p.id).sort(), ['edge', 'far', 'near', 'nowhere', 'south']);
  });

  it('keeps the client\'s connection open for its record at the end of a long download (Keep-Alive hint of HTTP_IDLE_MS)', async () => {
    const res = await fetch(`${origo.url}/api/proxies`);
    await res.arrayBuffer();
    assert.equal(res.headers.get('keep-alive'), `timeout=${HTTP_IDLE_MS / 1000}`);
    assert.ok(HTTP_IDLE_MS >= 60_000, 'outlasts a long download');
  });

  it('with lat/lon lists only proxies within 3,000 km (not the one 5,000 km away, nor one of unknown location)', async () => {
    const { status, body } = await getProxies(origo.url, `?lat=${client.lat}&lon=${client.lon}`);
    assert.equal(status, 200);
    assert.deepEqual(body.proxies.map((p) => p.id).sort(), ['edge', 'near', 'south']);
  });

  it('n limits the count to a random subset without repeats', async () => {
    /** @type {Set<string>} */
    const seen = new Set();
    for (let i = 0; i < 30; i++) {
      const { body } = await getProxies(origo.url, '?n=2');
      assert.equal(body.proxies.length, 2);
      assert.notEqual(body.proxies[0].id, body.proxies[1].id);
      body.proxies.forEach((p) => seen.add(p.id));
    }
    assert.ok(seen.size > 2, 'different calls pick different proxies');
    const { body } = await getProxies(origo.url, `?n=1&lat=0&lon=0`);
    assert.equal(body.proxies.length, 1);
    assert.ok(['edge', 'near', 'south'].includes(body.proxies[0].id));
  });

  for (const [query, why] of [
    ['?lat=abc&lon=1', 'not a number'],
    ['?lat=10', 'lat without lon'],
    ['?lat=91&lon=0', 'lat out of range'],
    ['?lat=0&lon=-180.5', 'lon out of range'],
    ['?lat=0x10&lon=0', 'hex'],
    ['?lat=1e1&lon=0', 'exponent'],
    ['?n=0', 'n below 1'],
    ['?n=1.5', 'n not an integer'],
    ['?n=65', 'n above the cap'],
    ['?n=1&n=2', 'n repeated'],
  ]) {
    it(`refuses ${why} with 400 ERR_BAD_QUERY`, async () => {
      const { status, body } = await getProxies(origo.url, query);
      assert.equal(status, 400);
      assert.equal(body.error.code, 'ERR_BAD_QUERY');
      assert.equal(typeof body.error.message, 'string');
    });
  }
});
