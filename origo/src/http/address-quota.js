// A per-client-address allowance per fixed window (tickets issued, record bytes stored). The whole
// table is dropped when a window ends, so it holds at most one window's addresses.

/**
 * @param {{ perWindow: number, windowMs: number, now?: () => number }} o  now: ms clock
 * @returns {{ take: (address: string, amount: number) => boolean, used: (address: string) => number }}
 *   take() spends `amount` and is true, or spends nothing and is false when it would pass perWindow
 */
export function createAddressQuota({ perWindow, windowMs, now = Date.now }) {
  /** @type {Map<string, number>} */
  let used = new Map();
  let windowStart = now();
  const roll = () => {
    const t = now();
    if (t - windowStart >= windowMs) {
      used = new Map();
      windowStart = t;
    }
  };
  return {
    take(address, amount) {
      roll();
      const next = (used.get(address) ?? 0) + amount;
      if (next > perWindow) return false;
      used.set(address, next);
      return true;
    },
    used(address) {
      roll();
      return used.get(address) ?? 0;
    },
  };
}
