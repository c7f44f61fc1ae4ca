// Closing a peer connection of libdatachannel (node-datachannel, stock or the proxy's tuned build)
// without racing the stack's own close of a failed one. No import of the stack itself: the proxy
// uses it with whichever build it loaded.

/**
 * How long (ms) a failed connection is given to close itself before close() is called anyway:
 * libdatachannel closes it on its own thread at once (a few ms); this only bounds a stack that
 * never reports "closed".
 */
export const FAILED_CLOSE_GRACE_MS = 5000;

/**
 * Close a peer connection. A failed one is closed once the stack says it is closed:
 * libdatachannel closes a failed connection itself, on a worker thread, just after it reports the
 * failure, and node-datachannel's stock close() from JavaScript in that moment can crash the
 * process (the worker calls a callback close() has freed; the tuned build holds them).
 * @param {RTCPeerConnection} pc
 * @param {number} [graceMs]
 */
export function closeConnection(pc, graceMs = FAILED_CLOSE_GRACE_MS) {
  const close = () => {
    try {
      pc.close();
    } catch {
      // already closed
    }
  };
  if (pc.connectionState !== 'failed') return close();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    pc.removeEventListener('connectionstatechange', onState);
    close();
  };
  const onState = () => {
    if (pc.connectionState === 'closed') finish();
  };
  const timer = setTimeout(finish, graceMs);
  timer.unref?.();
  pc.addEventListener('connectionstatechange', onState);
}
