// Waiting for the fleet host's window to be ready (its modules loaded, its listener installed).
import { FLEET_HOST_KEY } from '../shared/page-messages.js';

const READY_WAIT_MS = 3000; // a loaded 2-core box: the host page loads ProxyClientLib first
const READY_POLL_MS = 10;

/** @param {unknown} w @returns {boolean} */
export function isReadyHost(w) {
  try {
    return Boolean(w && /** @type {any} */ (w)[FLEET_HOST_KEY]);
  } catch {
    return false; // not ours to read
  }
}

/**
 * @param {() => Window | null | Promise<Window | null>} find
 * @returns {Promise<Window | null>} the ready host, or null after READY_WAIT_MS
 */
export async function whenReady(find) {
  const deadline = performance.now() + READY_WAIT_MS;
  for (;;) {
    const w = await find();
    if (w && isReadyHost(w)) return w;
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}
