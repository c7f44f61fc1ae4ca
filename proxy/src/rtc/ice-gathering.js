// Wait until a peer connection has gathered all its ICE candidates, so the SDP we hand over
// is complete (signalling is one HTTP round trip, no trickle ICE).

/**
 * @param {RTCPeerConnection} pc
 * @param {number} timeoutMs
 * @returns {Promise<void>} rejects with code ERR_ICE_TIMEOUT
 */
export function iceGatheringComplete(pc, timeoutMs) {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onChange = () => {
      if (pc.iceGatheringState !== 'complete') return;
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => {
      cleanup();
      const err = new Error(`ICE gathering did not complete within ${timeoutMs} ms`);
      /** @type {any} */ (err).code = 'ERR_ICE_TIMEOUT';
      reject(err);
    }, timeoutMs);
    function cleanup() {
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', onChange);
    }
    pc.addEventListener('icegatheringstatechange', onChange);
  });
}
