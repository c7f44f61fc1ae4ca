// Proxy statuses into the store: the latest per proxy, at most one row per period. A proxy that sends
// thousands of statuses a second costs one append per period, and never more than one append in
// flight per proxy, so statuses cannot queue up in front of log commits.

/**
 * @typedef {import('../registry/proxy-registry.js').ProxyStatus} ProxyStatus
 * @typedef {{ latest: ProxyStatus | null, lastStoredAt: number, timer: NodeJS.Timeout | null, writing: boolean }} Slot
 */

/**
 * @param {{ store: import('../store/store-interface.js').Store, logger: import('@mutp/common/logger').Logger,
 *           periodMs: number, now?: () => number }} deps  now: ms clock
 */
export function createStatusSampler({ store, logger, periodMs, now = Date.now }) {
  /** @type {Map<string, Slot>} */
  const slots = new Map();
  let closed = false;
  let stored = 0;

  /** @param {string} proxyId @param {Slot} slot */
  function schedule(proxyId, slot) {
    if (closed || slot.timer || slot.writing || !slot.latest) return;
    const wait = slot.lastStoredAt + periodMs - now();
    if (wait <= 0) return write(proxyId, slot);
    slot.timer = setTimeout(() => {
      slot.timer = null;
      write(proxyId, slot);
    }, wait);
    slot.timer.unref();
  }

  /** @param {string} proxyId @param {Slot} slot */
  function write(proxyId, slot) {
    const status = slot.latest;
    if (!status || closed) return;
    slot.latest = null;
    slot.writing = true;
    slot.lastStoredAt = now();
    store.insertProxyStatus([status])
      .then(() => { stored++; })
      .catch((err) => logger.error('proxy status not stored', { proxyId, code: err.code, message: err.message }))
      .finally(() => {
        slot.writing = false;
        if (slots.get(proxyId) === slot) schedule(proxyId, slot);
      });
  }

  return {
    /** Keeps `status` as the proxy's latest; it is stored now or at the end of the period. @param {ProxyStatus} status */
    offer(status) {
      let slot = slots.get(status.proxyId);
      if (!slot) slots.set(status.proxyId, (slot = { latest: null, lastStoredAt: -Infinity, timer: null, writing: false }));
      slot.latest = status;
      schedule(status.proxyId, slot);
    },
    /** Statuses handed to the store so far (count). */
    get stored() {
      return stored;
    },
    close() {
      closed = true;
      for (const slot of slots.values()) if (slot.timer) clearTimeout(slot.timer);
      slots.clear();
    },
  };
}
