// MediaSource (and Safari-style ManagedMediaSource) as the page sees it: the same class, which
// tells us when the page makes one. Static members (isTypeSupported) are inherited.

/**
 * @param {Record<string, any>} g  the page's global object
 * @param {() => void} onCreate
 */
export function wrapMediaSource(g, onCreate) {
  for (const name of ['MediaSource', 'ManagedMediaSource', 'WebKitMediaSource']) {
    const Orig = g[name];
    if (typeof Orig !== 'function') continue;
    const Wrapped = class extends Orig {
      constructor(...args) {
        super(...args);
        try {
          onCreate();
        } catch {
          // never break the page's player
        }
      }
    };
    Object.defineProperty(Wrapped, 'name', { value: name });
    g[name] = Wrapped;
  }
}
