// Where the fleet's host runs (host-thread.js), with a stand-in for the browser's Worker: the
// worker gets the host's ports with its start, without waiting for a word from it; a worker
// without data channels gives them back and the page's own host answers what was already sent
// on them; a worker that dies with them leaves the page's requests to go direct at once, and the
// page's host takes the next ones on fresh ports.
import assert from 'node:assert/strict';
import { createFleet } from '../src/fleet.js';

const ORIGO = 'http://127.0.0.1:9'; // refuses at once: the page's host answers a request with an Origo failure
const SEGMENT = 'http://origin.test/v/seg-1.m4s';
const quiet = { warn: () => {} };

/** A Worker that only records what the page posts; the test answers for it. */
class StandInWorker {
  /** @type {StandInWorker[]} */
  static made = [];
  /** @param {URL} url @param {object} opts */
  constructor(url, opts) {
    this.url = url;
    this.opts = opts;
    /** @type {any[]} */
    this.posted = [];
    /** @type {((e: {data: unknown}) => void) | null} */
    this.onmessage = null;
    /** @type {((e: {message: string, preventDefault: () => void}) => void) | null} */
    this.onerror = null;
    this.terminated = false;
    StandInWorker.made.push(this);
  }

  /** @param {any} m */
  postMessage(m) { this.posted.push(m); }

  terminate() { this.terminated = true; }

  /** @param {unknown} data */
  say(data) { this.onmessage?.({ data }); }
}

describe('players: where the fleet host runs', () => {
  const saved = { Worker: globalThis.Worker, RTCPeerConnection: globalThis.RTCPeerConnection };
  /** @type {ReturnType<typeof createFleet>[]} */
  let fleets = [];
  beforeEach(() => {
    StandInWorker.made = [];
    /** @type {any} */ (globalThis).Worker = StandInWorker;
    /** @type {any} */ (globalThis).RTCPeerConnection ??= class {}; // the page has WebRTC
  });
  afterEach(async () => {
    await Promise.all(fleets.map((f) => f.close()));
    fleets = [];
    /** @type {any} */ (globalThis).Worker = saved.Worker;
    /** @type {any} */ (globalThis).RTCPeerConnection = saved.RTCPeerConnection;
  });
  const make = () => {
    const fleet = createFleet({ origo: ORIGO, mode: 'parallel-http', n: 2, logger: quiet, records: false });
    fleets.push(fleet);
    return fleet;
  };

  it('the worker gets the host\'s ports with its start, before it said a word; it runs there once it says it attached', async () => {
    const fleet = make();
    const w = StandInWorker.made[0];
    assert.ok(w, 'a worker was started');
    assert.match(String(w.url), /mutp-fleet-worker\.js$/);
    assert.equal(w.posted.length, 1, 'the attach went with the start');
    const m = w.posted[0];
    assert.equal(m.t, 'attach');
    for (const k of ['page', 'control', 'rtc']) assert.ok(m[k] instanceof MessagePort, `${k} port handed over`);
    w.say({ t: 'attached' });
    assert.equal(await fleet.runsIn(), 'worker');
    assert.equal(w.terminated, false);
  });

  it('a worker without data channels gives the ports back: the page\'s host answers what was sent on them meanwhile', async () => {
    const fleet = make();
    const w = StandInWorker.made[0];
    const asked = fleet.fetchSegment(SEGMENT); // posted on the page port while the worker holds its other end
    await new Promise((r) => setTimeout(r, 20));
    const { page, control } = w.posted[0];
    w.say({ t: 'refused', page, control });
    assert.equal(await fleet.runsIn(), 'page');
    assert.equal(w.terminated, true);
    const got = await asked;
    assert.ok('direct' in got);
    assert.match(got.direct, /^ERR_ORIGO/, `the page's host tried Origo for it: ${got.direct}`);
  });

  it('a worker that fails to start takes the ports with it: requests sent there go direct at once, the page\'s host takes the next on fresh ports', async () => {
    const fleet = make();
    const w = StandInWorker.made[0];
    const lost = fleet.fetchSegment(SEGMENT);
    await new Promise((r) => setTimeout(r, 20));
    w.onerror?.({ message: 'blocked by Content-Security-Policy', preventDefault() {} });
    assert.equal(await fleet.runsIn(), 'page');
    const first = await lost;
    assert.ok('direct' in first);
    assert.match(first.direct, /^ERR_FRAME_RESET/, `sent to the dead worker: ${first.direct}`);
    const next = await fleet.fetchSegment(SEGMENT);
    assert.ok('direct' in next);
    assert.match(next.direct, /^ERR_ORIGO/, `the page's host tried Origo for it: ${next.direct}`);
  });
});
