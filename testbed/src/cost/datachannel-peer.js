// One end of bench:datachannel's pair, a child process of the bench (IPC for everything): a
// WebRTC peer from the proxy's loader (@mutp/proxy/wrtc, so the build and SCTP settings are the
// proxy's), one pre-agreed unordered channel without retransmits as MUTP's, and either a sender
// of same-size messages at a paced rate or a receiver that counts them. No MUTP, no codec: what
// is measured is the WebRTC stack alone. argv: sender|receiver, the build (stock | auto | tuned).
import { loadWrtc } from '@mutp/proxy/wrtc';
import { MUTP_CHANNEL_LABEL, MUTP_CHANNEL_OPTIONS, MUTP_NEGOTIATED_CHANNEL_ID } from '@mutp/protocol/constants';

/** The sender keeps at most this much queued in the channel (bytes), as a proxy caps its own. */
const SEND_QUEUE_CAP_BYTES = 1024 * 1024;
/** Below this the channel asks for more (bytes). */
const SEND_QUEUE_LOW_BYTES = 256 * 1024;

const [role, build] = process.argv.slice(2);
if ((role !== 'sender' && role !== 'receiver') || !process.send) {
  process.stderr.write('datachannel-peer: run by bench:datachannel (sender|receiver BUILD, with an IPC channel)\n');
  process.exit(2);
}
const send = /** @type {(m: object) => void} */ (process.send.bind(process));
const { RTCPeerConnection, build: rtcBuild } = await loadWrtc({ ...process.env, MUTP_RTC_BUILD: build });
const pc = new RTCPeerConnection(/** @type {any} */ ({ iceServers: [], bindAddress: '127.0.0.1' }));
const channel = pc.createDataChannel(MUTP_CHANNEL_LABEL, { ...MUTP_CHANNEL_OPTIONS, negotiated: true, id: MUTP_NEGOTIATED_CHANNEL_ID });
channel.binaryType = 'arraybuffer';
// a candidate leaves after our description: the other end cannot take it before
/** @type {object[] | null} candidates gathered before our description went out */
let heldCandidates = [];
pc.onicecandidate = (e) => {
  if (!e.candidate) return;
  if (heldCandidates) heldCandidates.push(e.candidate.toJSON());
  else send({ candidate: e.candidate.toJSON() });
};
function sendDescription() {
  send({ description: pc.localDescription?.toJSON() });
  for (const candidate of heldCandidates ?? []) send({ candidate });
  heldCandidates = null;
}
channel.onopen = () => send({ open: true, build: rtcBuild.kind, libdatachannel: rtcBuild.libdatachannel });

let receivedBytes = 0;
channel.onmessage = (e) => {
  receivedBytes += /** @type {ArrayBuffer} */ (e.data).byteLength;
};

/**
 * Sends `bytes` in messages of `messageBytes`: every `tickMs` what the rate allows since the last
 * tick (a pacer's timer), or with rate 0 as fast as the channel takes them.
 * @param {{ rateMBps: number, tickMs: number, messageBytes: number, bytes: number }} o
 */
function sendAll({ rateMBps, tickMs, messageBytes, bytes }) {
  const message = new Uint8Array(messageBytes).fill(7);
  const started = performance.now();
  let sent = 0;
  const done = () => send({ sent, ms: performance.now() - started });
  // bytes the pace allows now: what is left over carries to the next tick, so the rate is kept
  // exactly whatever the message size; at most two ticks' worth, so a late timer is no burst
  let credit = 0;
  const fill = () => {
    while (sent < bytes && credit >= messageBytes && channel.bufferedAmount < SEND_QUEUE_CAP_BYTES) {
      channel.send(message);
      sent += messageBytes;
      credit -= messageBytes;
    }
  };
  if (rateMBps === 0) {
    credit = Infinity;
    channel.bufferedAmountLowThreshold = SEND_QUEUE_LOW_BYTES;
    channel.onbufferedamountlow = () => {
      fill();
      if (sent >= bytes) { channel.onbufferedamountlow = null; done(); }
    };
    fill();
    if (sent >= bytes) done();
    return;
  }
  const bytesPerMs = rateMBps * 1e3;
  const maxCredit = Math.max(messageBytes, 2 * tickMs * bytesPerMs);
  let last = started;
  const tick = () => {
    const now = performance.now();
    credit = Math.min(maxCredit, credit + (now - last) * bytesPerMs);
    last = now;
    fill();
    if (sent < bytes) setTimeout(tick, tickMs);
    else done();
  };
  tick();
}

/** @param {any} m */
async function handle(m) {
  if (m?.description) {
    await pc.setRemoteDescription(m.description);
    if (m.description.type === 'offer') {
      await pc.setLocalDescription(await pc.createAnswer());
      sendDescription();
    }
  } else if (m?.candidate) {
    await pc.addIceCandidate(m.candidate);
  } else if (m?.offer && role === 'sender') {
    await pc.setLocalDescription(await pc.createOffer());
    sendDescription();
  } else if (m?.start && role === 'sender') {
    const o = m.start;
    // the bench checked each option's bounds; here only that the numbers can drive the loop
    const ok = [o.rateMBps, o.tickMs, o.messageBytes, o.bytes].every((n) => Number.isFinite(n) && n >= 0) && o.messageBytes > 0;
    if (!ok) send({ error: `bad start: ${JSON.stringify(o)}` });
    else sendAll(o);
  } else if (m?.report) {
    send({ receivedBytes });
  } else if (m?.stop) {
    channel.close();
    pc.close();
    setTimeout(() => process.exit(0), 50);
  }
}

// One message at a time, in order: a candidate must not overtake its description.
let queue = Promise.resolve();
process.on('message', (m) => {
  queue = queue.then(() => handle(m)).catch((err) => send({ error: String(err?.message ?? err) }));
});
send({ ready: true });
