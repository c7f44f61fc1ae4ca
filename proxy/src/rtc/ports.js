// Which UDP ports the proxy's WebRTC uses. By default every peer connection takes an ephemeral
// port, so a firewall in front of a proxy must open the whole ephemeral range. `--rtc-ports`
// pins them: one port, which every peer shares (libjuice's ICE UDP mux: the connections are told
// apart by their ICE credentials), or a range, a port per peer connection.
import { codedError } from '@mutp/common/errors';

/** @typedef {{ first: number, last: number }} RtcPorts  inclusive; first === last: one shared port */

/**
 * "PORT" or "FIRST-LAST" (1..65535, FIRST ≤ LAST) → RtcPorts; ERR_BAD_CONFIG otherwise.
 * @param {string} text
 * @returns {RtcPorts}
 */
export function parseRtcPorts(text) {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(String(text).trim());
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2] ?? m[1]) : NaN;
  if (!(first >= 1 && last <= 65535 && first <= last)) {
    throw codedError('ERR_BAD_CONFIG', `rtc ports must be PORT or FIRST-LAST within 1..65535, got ${JSON.stringify(text)}`);
  }
  return { first, last };
}

/**
 * The RTCPeerConnection options for `ports` (node-datachannel's), and how many peer connections
 * they allow at once (Infinity: no limit of their own).
 * @param {RtcPorts | null} ports
 * @returns {{ rtcConfig: object, maxPeers: number, said: string }}  said: for the log
 */
export function rtcPortOptions(ports) {
  if (!ports) return { rtcConfig: {}, maxPeers: Infinity, said: 'an ephemeral UDP port per peer' };
  const { first, last } = ports;
  if (first === last) return { rtcConfig: { portRangeBegin: first, portRangeEnd: last, enableIceUdpMux: true }, maxPeers: Infinity, said: `UDP port ${first}, shared by every peer` };
  // each peer connection binds a port of its own: past the range, gathering fails
  return { rtcConfig: { portRangeBegin: first, portRangeEnd: last }, maxPeers: last - first + 1, said: `UDP ports ${first}-${last}, a peer connection each` };
}
