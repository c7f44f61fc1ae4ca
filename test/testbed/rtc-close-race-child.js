// Child of rtc-close-race.test.js: pairs of real peer connections on loopback, each closed from
// both ends a little apart, so one end's libdatachannel worker is delivering the "closed"
// callbacks for the other's shutdown while its own JavaScript closes it. Prints one JSON line.
// argv: rounds. The build is MUTP_RTC_BUILD's (proxy/src/rtc/wrtc.js).
import { loadWrtc } from '@mutp/proxy/wrtc';

const rounds = Number(process.argv[2]);
/** Messages sent before the close: the association is busy, as a download's is. */
const MESSAGES_BEFORE_CLOSE = 200;
/** The second end closes this long after the first (ms), cycling: its worker is then mid-shutdown. */
const SECOND_CLOSE_AFTER_MS = [0, 1, 2, 3];

const { RTCPeerConnection, build } = await loadWrtc(process.env);
const config = { iceServers: [], bindAddress: '127.0.0.1' };

/** @param {RTCPeerConnection} pc */
const gathered = (pc) => new Promise((resolve) => {
  if (pc.iceGatheringState === 'complete') return resolve(undefined);
  pc.addEventListener('icegatheringstatechange', () => { if (pc.iceGatheringState === 'complete') resolve(undefined); });
});

/** @param {number} round */
async function closeBothEnds(round) {
  const a = new RTCPeerConnection(config);
  const b = new RTCPeerConnection(config);
  const init = { ordered: false, maxRetransmits: 0, negotiated: true, id: 0 };
  const channel = a.createDataChannel('mutp', init);
  b.createDataChannel('mutp', init);
  await a.setLocalDescription(await a.createOffer());
  await gathered(a);
  await b.setRemoteDescription(/** @type {RTCSessionDescription} */ (a.localDescription));
  await b.setLocalDescription(await b.createAnswer());
  await gathered(b);
  await a.setRemoteDescription(/** @type {RTCSessionDescription} */ (b.localDescription));
  await new Promise((resolve) => { if (channel.readyState === 'open') resolve(undefined); else channel.addEventListener('open', resolve); });
  for (let i = 0; i < MESSAGES_BEFORE_CLOSE; i++) channel.send(new Uint8Array(1200));
  a.close();
  await new Promise((resolve) => setTimeout(resolve, SECOND_CLOSE_AFTER_MS[round % SECOND_CLOSE_AFTER_MS.length]));
  b.close();
}

for (let i = 0; i < rounds; i++) await closeBothEnds(i);
console.log(JSON.stringify({ rounds, build: build.kind }));
process.exit(0);
