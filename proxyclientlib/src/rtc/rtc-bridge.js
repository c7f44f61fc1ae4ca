// A worker borrows its page's WebRTC. Browsers give workers no RTCPeerConnection, but Chromium and
// Firefox let a page hand a data channel to a worker, if it does so in the task that created the
// channel and before any send. So the page keeps each peer connection (signalling, ICE and DTLS state are
// a handful of events) and the worker gets the channel itself: every MUTP packet, its decode and
// the vote then run on the worker's thread, not the page's, which the player needs for its own
// work. Two halves over one MessagePort: serveRtcBridge (page) and bridgedPeerConnection (worker),
// whose class has the part of RTCPeerConnection's interface ProxyClientLib uses, with one
// difference: createDataChannel resolves to the channel (the page makes it) instead of returning it.
import { codedError } from '@mutp/common/errors';

/** Connection states mirrored into the worker, each with the event that says it changed. */
const MIRRORED = /** @type {const} */ ({
  connectionState: 'connectionstatechange',
  iceConnectionState: 'iceconnectionstatechange',
  iceGatheringState: 'icegatheringstatechange',
  signalingState: 'signalingstatechange',
});
const CALLS = new Set(['createOffer', 'setLocalDescription', 'setRemoteDescription']); // what the worker's class asks for
const MAX_LABEL_CHARS = 256; // a channel label; ours is a few characters
const MAX_SDP_CHARS = 64 * 1024; // one channel's offer or answer is ~1 KB

/**
 * A description as structured clone carries it (RTCSessionDescription itself is not cloneable).
 * @param {RTCSessionDescription | RTCSessionDescriptionInit | null | undefined} d
 * @returns {{type: RTCSdpType, sdp: string} | null}
 */
const plainDescription = (d) => (d && typeof d.sdp === 'string' ? { type: /** @type {RTCSdpType} */ (d.type), sdp: d.sdp } : null);

/** @param {unknown} d @returns {d is {type: RTCSdpType, sdp: string}} */
const isDescription = (d) => !!d && typeof d === 'object' && ['offer', 'answer', 'pranswer', 'rollback'].includes(/** @type {any} */ (d).type) &&
  typeof /** @type {any} */ (d).sdp === 'string' && /** @type {any} */ (d).sdp.length <= MAX_SDP_CHARS;

/**
 * The page's half: make the peer connections the worker asks for and hand it their channels.
 * Messages that are not the bridge's, or malformed, are counted and logged; one that waits for an
 * answer gets an error.
 * @param {MessagePort} port
 * @param {{RTCPeerConnection?: typeof RTCPeerConnection, logger?: {warn: (...a: unknown[]) => void}}} [o]
 * @returns {{close: () => void, open: () => number, refused: () => number}}  close: every peer connection; open: how many are
 */
export function serveRtcBridge(port, { RTCPeerConnection = globalThis.RTCPeerConnection, logger = console } = {}) {
  /** @type {Map<number, RTCPeerConnection>} */
  const pcs = new Map();
  let refused = 0;
  /** @param {string} why */
  const refuse = (why) => {
    refused++;
    logger.warn(`[mutp rtc bridge] refused: ${why}`);
  };

  /** @param {number} id @param {RTCPeerConnection} pc @param {string | null} event */
  function sendState(id, pc, event) {
    /** @type {Record<string, unknown>} */
    const state = { localDescription: plainDescription(pc.localDescription), remoteDescription: plainDescription(pc.remoteDescription) };
    for (const k of Object.keys(MIRRORED)) state[k] = /** @type {any} */ (pc)[k];
    port.postMessage({ t: 'state', id, state, event });
  }

  /** @param {any} m */
  async function onMessage(m) {
    if (!m || typeof m !== 'object' || !Number.isSafeInteger(m.id)) return refuse('not a bridge message');
    if (m.t === 'new') {
      if (pcs.has(m.id)) return refuse(`peer connection ${m.id} exists`);
      const config = m.config && typeof m.config === 'object' ? m.config : {};
      let pc;
      try {
        pc = new RTCPeerConnection(config);
      } catch (err) {
        port.postMessage({ t: 'state', id: m.id, state: { connectionState: 'failed', iceConnectionState: 'failed' }, event: 'connectionstatechange',
          error: /** @type {Error} */ (err).message });
        return;
      }
      pcs.set(m.id, pc);
      for (const event of Object.values(MIRRORED)) pc.addEventListener(event, () => sendState(m.id, pc, event));
      return;
    }
    const pc = pcs.get(m.id);
    if (m.t === 'close') {
      pcs.delete(m.id);
      pc?.close();
    } else if (!pc && Number.isSafeInteger(m.call)) {
      port.postMessage({ t: 'reply', call: m.call, error: { name: 'InvalidStateError', message: `no peer connection ${m.id} in the page` } });
    } else if (!pc) {
      refuse(`no peer connection ${m.id}`);
    } else if (m.t === 'channel' && Number.isSafeInteger(m.call) && typeof m.label === 'string' && m.label.length <= MAX_LABEL_CHARS) {
      let channel;
      try {
        channel = pc.createDataChannel(m.label, m.init && typeof m.init === 'object' ? m.init : {});
      } catch (err) {
        port.postMessage({ t: 'reply', call: m.call, error: { name: /** @type {Error} */ (err).name, message: /** @type {Error} */ (err).message } });
        return;
      }
      // in this task: a channel is transferable only where it was made, before it is used
      port.postMessage({ t: 'reply', call: m.call, value: channel }, [/** @type {any} */ (channel)]);
    } else if (m.t === 'call' && Number.isSafeInteger(m.call) && CALLS.has(m.method) && (m.arg === undefined || isDescription(m.arg))) {
      try {
        const value = await /** @type {any} */ (pc)[m.method](...(m.arg === undefined ? [] : [m.arg]));
        sendState(m.id, pc, null); // the descriptions it set, before the worker's await resumes
        port.postMessage({ t: 'reply', call: m.call, value: plainDescription(value) });
      } catch (err) {
        port.postMessage({ t: 'reply', call: m.call, error: { name: /** @type {Error} */ (err).name, message: /** @type {Error} */ (err).message } });
      }
    } else {
      refuse(`bad ${String(m.t).slice(0, 40)} message`);
      if (Number.isSafeInteger(m.call)) port.postMessage({ t: 'reply', call: m.call, error: { name: 'TypeError', message: 'the page refused the request' } });
    }
  }

  port.onmessage = (e) => {
    onMessage(e.data).catch((err) => refuse(String(err?.message ?? err)));
  };
  return {
    close() {
      for (const pc of pcs.values()) pc.close();
      pcs.clear();
      port.close();
    },
    open: () => pcs.size,
    refused: () => refused,
  };
}

/**
 * The worker's half: a class to use as RTCPeerConnection, whose connections live in the page at
 * the other end of the port the returned `connect` is given. Until then, it refuses with
 * ERR_RTC_UNAVAILABLE, as an environment without WebRTC does.
 * @returns {{PeerConnection: new (config?: RTCConfiguration) => RTCPeerConnection, connect: (port: MessagePort) => void}}
 */
export function bridgedPeerConnection() {
  /** @type {MessagePort | null} */
  let port = null;
  let nextId = 1;
  let nextCall = 1;
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
  const calls = new Map();
  /** @type {Map<number, BridgedPeerConnection>} */
  const pcs = new Map();

  /** @param {any} m */
  function onMessage(m) {
    if (m?.t === 'reply' && calls.has(m.call)) {
      const c = /** @type {{resolve: (v: any) => void, reject: (e: Error) => void}} */ (calls.get(m.call));
      calls.delete(m.call);
      if (m.error) c.reject(Object.assign(new Error(String(m.error.message)), { name: String(m.error.name) }));
      else c.resolve(m.value);
    } else if (m?.t === 'state') {
      pcs.get(m.id)?.mirror(m.state ?? {}, typeof m.event === 'string' ? m.event : null);
    }
  }

  /** @param {Record<string, unknown>} m @param {Transferable[]} [transfer] */
  function post(m, transfer = []) {
    if (!port) throw codedError('ERR_RTC_UNAVAILABLE', 'no RTCPeerConnection in this worker: its page has not connected the WebRTC bridge');
    port.postMessage(m, transfer);
  }

  /** @param {Record<string, unknown>} m @returns {Promise<any>} */
  function call(m) {
    return new Promise((resolve, reject) => {
      const id = nextCall++;
      calls.set(id, { resolve, reject });
      try {
        post({ ...m, call: id });
      } catch (err) {
        calls.delete(id);
        reject(err);
      }
    });
  }

  class BridgedPeerConnection extends EventTarget {
    /** @param {RTCConfiguration} [config] */
    constructor(config = {}) {
      super();
      this.id = nextId++;
      /** @type {RTCPeerConnectionState} */
      this.connectionState = 'new';
      /** @type {RTCIceConnectionState} */
      this.iceConnectionState = 'new';
      /** @type {RTCIceGatheringState} */
      this.iceGatheringState = 'new';
      /** @type {RTCSignalingState} */
      this.signalingState = 'stable';
      /** @type {{type: RTCSdpType, sdp: string} | null} */
      this.localDescription = null;
      /** @type {{type: RTCSdpType, sdp: string} | null} */
      this.remoteDescription = null;
      post({ t: 'new', id: this.id, config: JSON.parse(JSON.stringify(config)) });
      pcs.set(this.id, this);
    }

    /** @param {Record<string, any>} state @param {string | null} event */
    mirror(state, event) {
      for (const k of ['localDescription', 'remoteDescription']) if (k in state) /** @type {any} */ (this)[k] = state[k];
      for (const k of Object.keys(MIRRORED)) if (typeof state[k] === 'string') /** @type {any} */ (this)[k] = state[k];
      if (event) this.dispatchEvent(new Event(event));
    }

    /** @param {string} label @param {RTCDataChannelInit} [init] @returns {Promise<RTCDataChannel>} made in the page, handed over */
    createDataChannel(label, init = {}) {
      return call({ t: 'channel', id: this.id, label, init });
    }

    createOffer() {
      return call({ t: 'call', id: this.id, method: 'createOffer' });
    }

    /** @param {RTCSessionDescriptionInit} [d] */
    setLocalDescription(d) {
      return call({ t: 'call', id: this.id, method: 'setLocalDescription', arg: plainDescription(d) ?? undefined });
    }

    /** @param {RTCSessionDescriptionInit} d */
    setRemoteDescription(d) {
      return call({ t: 'call', id: this.id, method: 'setRemoteDescription', arg: plainDescription(d) ?? undefined });
    }

    close() {
      if (!pcs.has(this.id)) return;
      pcs.delete(this.id);
      this.connectionState = 'closed';
      this.iceConnectionState = 'closed';
      this.signalingState = 'closed';
      try {
        post({ t: 'close', id: this.id });
      } catch {
        // no page: nothing open there
      }
    }
  }

  return {
    PeerConnection: /** @type {any} */ (BridgedPeerConnection),
    connect(p) {
      port = p;
      port.onmessage = (e) => onMessage(e.data);
    },
  };
}
