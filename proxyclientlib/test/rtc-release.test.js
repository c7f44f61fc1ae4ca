// releaseRtc (Node's #rtc): a process done with WebRTC ends at once. A peer connection closed
// while it was still being set up keeps libdatachannel's threads, and with them Node's event loop,
// alive with no handle Node could name (a one-off `mutp get` waited out its exit grace for it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const RTC_NODE = new URL('../src/rtc/rtc.node.js', import.meta.url).href;

/** A child that sets up two peer connections to each other, closes both mid-set-up, then (release) calls releaseRtc. @param {boolean} release */
function child(release) {
  const script = `
    import { RTCPeerConnection, releaseRtc } from ${JSON.stringify(RTC_NODE)};
    const a = new RTCPeerConnection({ iceServers: [] });
    const b = new RTCPeerConnection({ iceServers: [] });
    a.createDataChannel('x');
    await a.setLocalDescription(await a.createOffer());
    await b.setRemoteDescription(a.localDescription);
    await b.setLocalDescription(await b.createAnswer());
    await a.setRemoteDescription(b.localDescription);
    a.close();
    b.close();
    if (${release}) releaseRtc();`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 5000 });
}

describe('releaseRtc (Node)', function () {
  this.timeout(20_000);

  it('a process that closed its peer connections mid-set-up ends once it releases the WebRTC stack; without it, it does not', () => {
    const released = child(true);
    assert.equal(released.status, 0, released.stderr);
    const held = child(false);
    assert.equal(held.status, null, 'without releaseRtc the child ran until killed (if this fails, libdatachannel no longer holds the process and releaseRtc may go)');
  });
});
