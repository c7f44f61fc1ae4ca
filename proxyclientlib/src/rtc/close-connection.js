// Node: closing a peer connection of libdatachannel (node-datachannel, stock or the proxy's tuned
// build) without racing the stack's own close. No import of the stack itself: the proxy uses it
// with whichever build it loaded, and the CLI loads none for an HTTP mode. The browser gets
// close-connection.browser.js ("#close-connection").

/**
 * How long (ms) a connection the stack is closing is given to finish before close() is called
 * anyway: libdatachannel takes a few ms; this only bounds a stack that never reports "closed".
 */
export const SETTLE_CLOSE_GRACE_MS = 5000;

/**
 * States in which libdatachannel has already queued its own close of the connection: it enters
 * them (a failed transport, or the remote end's shutdown: "disconnected") and closes the
 * connection on a worker thread right after.
 */
const CLOSING_ITSELF = new Set(['failed', 'disconnected']);

/**
 * Close a peer connection. One the stack is closing itself is closed once the stack says it is
 * closed: node-datachannel's stock close() from JavaScript while libdatachannel's worker closes
 * the same connection can crash the process (the worker calls a callback close() has freed; the
 * tuned build's callbacks hold their own reference).
 * @param {RTCPeerConnection} pc
 * @param {number} [graceMs]
 */
export function closeConnection(pc, graceMs = SETTLE_CLOSE_GRACE_MS) {
  const close = () => {
    try {
      pc.close();
    } catch {
      // already closed
    }
  };
  if (!CLOSING_ITSELF.has(pc.connectionState)) return close();
  // runs once: whichever comes first takes the other away
  const finish = () => {
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
