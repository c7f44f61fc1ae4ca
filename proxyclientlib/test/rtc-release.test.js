// releaseRtc (Node's #rtc): a process done with WebRTC ends at once. A peer connection closed
// while it was still being set up keeps libdatachannel's threads, and with them Node's event loop,
// alive with no handle Node could name (a one-off `mutp get` waited out its exit grace for it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const RTC_NODE = new URL('../src/rtc/rtc.node.js', import.meta.url).href;
const SETUP_FAILED = 3; // the child's exit status when libdatachannel refused the set-up itself (a race of its own, ~1 in 10: a remote candidate before its ICE transport)
const TRIES = 5; // children run until one gets through the set-up
const HELD_TRIES = 3; // children run without releaseRtc until one is held

/** A child that sets up two peer connections to each other, closes both mid-set-up, then (release) calls releaseRtc. @param {boolean} release */
function child(release) {
  const script = `
    import { RTCPeerConnection, releaseRtc } from ${JSON.stringify(RTC_NODE)};
    const a = new RTCPeerConnection({ iceServers: [] });
    const b = new RTCPeerConnection({ iceServers: [] });
    try {
      a.createDataChannel('x');
      await a.setLocalDescription(await a.createOffer());
      await b.setRemoteDescription(a.localDescription);
      await b.setLocalDescription(await b.createAnswer());
      await a.setRemoteDescription(b.localDescription);
    } catch (err) {
      console.error(err.message);
      process.exit(${SETUP_FAILED});
    }
    a.close();
    b.close();
    if (${release}) releaseRtc();`;
  for (let i = 1; ; i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 5000 });
    if (r.status !== SETUP_FAILED || i === TRIES) return r;
  }
}

describe('releaseRtc (Node)', function () {
  this.timeout(60_000);

  it('a process that closed its peer connections mid-set-up ends once it releases the WebRTC stack; without it, it does not', () => {
    const released = child(true);
    assert.equal(released.status, 0, released.stderr);
    // the hold itself is a race (a set-up that settled before the close lets go): one held child of a few shows it
    let held = child(false);
    for (let i = 1; i < HELD_TRIES && held.status !== null; i++) held = child(false);
    assert.equal(held.status, null, `without releaseRtc none of ${HELD_TRIES} children ran until killed (if this fails, libdatachannel no longer holds the process and releaseRtc may go)`);
  });
});
