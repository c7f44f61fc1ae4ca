// A token bucket over one proxy connection's socket.io events: `rate` per second sustained, `burst` above it.
// Pure: the caller passes the clock.

/**
 * @param {{ perSecond: number, burst: number, now: number }} o  now in ms
 * @returns {{ take: (now: number) => boolean }}  take() is false once the budget is spent
 */
export function createEventBudget({ perSecond, burst, now }) {
  let tokens = burst;
  let at = now;
  return {
    take(t) {
      tokens = Math.min(burst, tokens + ((t - at) * perSecond) / 1000);
      at = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
