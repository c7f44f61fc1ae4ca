// Browser: the browser's own stack closes a failed or disconnected connection only when told to,
// so there is nothing to wait for. Chosen by the "browser" condition of "#close-connection".

/** @param {RTCPeerConnection} pc */
export function closeConnection(pc) {
  pc.close();
}
