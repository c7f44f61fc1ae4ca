// The WebRTC bridge between a page and its worker (rtc-bridge.js), over a real MessageChannel.
// The page's RTCPeerConnection is a fake whose "data channels" are MessagePorts: structured clone
// hands those over as a browser hands over a data channel, so the test sees the very channel the
// page made arrive in the worker.
import assert from 'node:assert/strict';
import { serveRtcBridge, bridgedPeerConnection } from '../src/rtc/rtc-bridge.js';

/** @type {FakePeerConnection[]} */
let made = [];

class FakePeerConnection extends EventTarget {
  constructor(config) {
    super();
    this.config = config;
    this.connectionState = 'new';
    this.iceConnectionState = 'new';
    this.iceGatheringState = 'new';
    this.signalingState = 'stable';
    this.localDescription = null;
    this.remoteDescription = null;
    this.closed = false;
    /** @type {{label: string, init: object, port: MessagePort}[]} */
    this.channels = [];
    made.push(this);
  }

  createDataChannel(label, init) {
    if (label === 'refused') throw new TypeError('no such label');
    const { port1, port2 } = new MessageChannel();
    this.channels.push({ label, init, port: port1 });
    return port2;
  }

  async createOffer() {
    return { type: 'offer', sdp: 'v=0\r\no=offer\r\n' };
  }

  async setLocalDescription(d) {
    this.localDescription = d;
    this.signalingState = 'have-local-offer';
    this.iceGatheringState = 'gathering';
  }

  async setRemoteDescription(d) {
    if (!d.sdp.includes('answer')) throw Object.assign(new Error('not an answer'), { name: 'InvalidAccessError' });
    this.remoteDescription = d;
    this.signalingState = 'stable';
  }

  close() {
    this.closed = true;
  }

  /** The browser changes a state and says so. */
  change(k, v, event) {
    this[k] = v;
    this.dispatchEvent(new Event(event));
  }
}

/**
 * What `read` sees in the listener of the next `event` (in it, not a microtask later).
 * @param {EventTarget} target @param {string} event @param {() => unknown} read
 */
const seenOnNext = (target, event, read) => new Promise((resolve) => target.addEventListener(event, () => resolve(read()), { once: true }));

describe('rtc-bridge: a worker borrows its page\'s RTCPeerConnection', () => {
  let page, worker, warnings;

  beforeEach(() => {
    made = [];
    warnings = [];
    const { port1, port2 } = new MessageChannel();
    page = serveRtcBridge(port1, { RTCPeerConnection: /** @type {any} */ (FakePeerConnection), logger: { warn: (m) => warnings.push(m) } });
    worker = bridgedPeerConnection();
    worker.connect(port2);
  });

  afterEach(() => page.close());

  it('makes the connection in the page with its config, and hands the worker the channel the page made', async () => {
    const pc = new worker.PeerConnection({ iceServers: [] });
    const channel = await pc.createDataChannel('mutp', { negotiated: true, id: 0, ordered: false, maxRetransmits: 0 });
    assert.equal(made.length, 1);
    assert.deepEqual(made[0].config, { iceServers: [] });
    assert.deepEqual(made[0].channels.map((c) => [c.label, c.init]), [['mutp', { negotiated: true, id: 0, ordered: false, maxRetransmits: 0 }]]);
    // the channel that arrived is the page's own: what one end sends, the other gets
    const got = new Promise((resolve) => { channel.onmessage = (e) => resolve(e.data); });
    made[0].channels[0].port.postMessage('packet 1');
    assert.equal(await got, 'packet 1');
    channel.close();
  });

  it('runs the offer and answer in the page and mirrors the descriptions before each await resumes', async () => {
    const pc = new worker.PeerConnection();
    const offer = await pc.createOffer();
    assert.deepEqual(offer, { type: 'offer', sdp: 'v=0\r\no=offer\r\n' });
    await pc.setLocalDescription(offer);
    assert.deepEqual(pc.localDescription, offer);
    assert.equal(pc.signalingState, 'have-local-offer');
    assert.equal(pc.iceGatheringState, 'gathering');
    await pc.setRemoteDescription({ type: 'answer', sdp: 'v=0\r\no=answer\r\n' });
    assert.deepEqual(pc.remoteDescription, { type: 'answer', sdp: 'v=0\r\no=answer\r\n' });
    assert.equal(pc.signalingState, 'stable');
  });

  it('dispatches each state event in the worker with the page\'s new values already in place', async () => {
    const pc = new worker.PeerConnection();
    await pc.createOffer();
    const gathered = seenOnNext(pc, 'icegatheringstatechange', () => [pc.iceGatheringState, pc.localDescription?.sdp]);
    made[0].localDescription = { type: 'offer', sdp: 'v=0\r\na=candidate:1 1 udp 1 10.0.0.1 5000 typ host\r\n' };
    made[0].change('iceGatheringState', 'complete', 'icegatheringstatechange');
    assert.deepEqual(await gathered, ['complete', 'v=0\r\na=candidate:1 1 udp 1 10.0.0.1 5000 typ host\r\n']);
    const connected = seenOnNext(pc, 'connectionstatechange', () => pc.connectionState);
    made[0].change('connectionState', 'connected', 'connectionstatechange');
    assert.equal(await connected, 'connected');
    const failed = seenOnNext(pc, 'iceconnectionstatechange', () => pc.iceConnectionState);
    made[0].change('iceConnectionState', 'failed', 'iceconnectionstatechange');
    assert.equal(await failed, 'failed');
  });

  it('rejects in the worker what the page\'s connection refused, with its error name', async () => {
    const pc = new worker.PeerConnection();
    await assert.rejects(pc.setRemoteDescription({ type: 'answer', sdp: 'v=0\r\n' }), { name: 'InvalidAccessError', message: 'not an answer' });
    await assert.rejects(pc.createDataChannel('refused'), { name: 'TypeError', message: 'no such label' });
  });

  it('closes the page\'s connection with the worker\'s, and every one when the page closes the bridge', async () => {
    const a = new worker.PeerConnection();
    const b = new worker.PeerConnection();
    await a.createOffer();
    await b.createOffer();
    assert.equal(page.open(), 2);
    a.close();
    assert.equal(a.connectionState, 'closed');
    await b.createOffer(); // a later round trip: the close went before it
    assert.equal(made[0].closed, true);
    assert.equal(made[1].closed, false);
    assert.equal(page.open(), 1);
    page.close();
    assert.equal(made[1].closed, true);
    assert.equal(page.open(), 0);
  });

  it('refuses malformed requests in the page, counted and answered, without throwing', async () => {
    const { port1, port2 } = new MessageChannel();
    const refused = [];
    const served = serveRtcBridge(port1, { RTCPeerConnection: /** @type {any} */ (FakePeerConnection), logger: { warn: (m) => refused.push(m) } });
    const replies = [];
    port2.onmessage = (e) => replies.push(e.data);
    port2.postMessage(null);
    port2.postMessage({ t: 'new', id: 'x' });
    port2.postMessage({ t: 'new', id: 1 });
    port2.postMessage({ t: 'new', id: 1 }); // again
    port2.postMessage({ t: 'call', id: 1, call: 7, method: 'close' }); // not a call the bridge makes
    port2.postMessage({ t: 'call', id: 1, call: 8, method: 'setRemoteDescription', arg: { type: 'answer', sdp: 'x'.repeat(70_000) } });
    port2.postMessage({ t: 'channel', id: 2, call: 9, label: 'mutp' }); // no such connection
    port2.postMessage({ t: 'channel', id: 1, call: 10, label: 'x'.repeat(300) });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(served.refused(), 6);
    assert.equal(refused.length, 6);
    assert.deepEqual(replies.map((r) => [r.call, r.error?.name]), [[7, 'TypeError'], [8, 'TypeError'], [9, 'InvalidStateError'], [10, 'TypeError']]);
    assert.equal(made.length, 1);
    assert.equal(made[0].closed, false, 'a refused request changes nothing');
    served.close();
    port2.close();
  });

  it('has no connection to offer before its page connects it: ERR_RTC_UNAVAILABLE, as with no WebRTC at all', () => {
    const lone = bridgedPeerConnection();
    assert.throws(() => new lone.PeerConnection(), { code: 'ERR_RTC_UNAVAILABLE' });
  });
});
