// Runs inside the bench page (plain.html of the test site, which the extension does not
// otherwise touch): one timed fetch, through the page's (wrapped) fetch or the browser's own.
// These functions are serialised by puppeteer, so they use nothing from this module's scope.

/**
 * Install `window.__bench.timed(url, native)`. "Native" is the fetch of an about:blank child
 * frame: such a frame gets no content script, so its fetch is the browser's own (the same
 * trick as the e2e "other site" test). Returns whether that claim holds.
 */
export function installTimedFetch() {
  const bare = document.createElement('iframe');
  document.body.append(bare);
  const nativeFetch = /** @type {any} */ (bare.contentWindow).fetch.bind(bare.contentWindow);
  const hex = (/** @type {ArrayBuffer} */ b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
  /** @param {string} url @param {boolean} native */
  async function timed(url, native) {
    const f = native ? nativeFetch : fetch;
    const t0 = performance.now();
    const res = await f(url, { cache: 'no-store' });
    const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (res.body.getReader());
    let firstByteMs = null;
    const parts = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (firstByteMs === null && value.byteLength > 0) firstByteMs = performance.now() - t0;
      parts.push(value);
    }
    const completeMs = performance.now() - t0;
    const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let o = 0;
    for (const p of parts) { all.set(p, o); o += p.byteLength; }
    return { status: res.status, firstByteMs, completeMs, bytes: all.byteLength, sha: hex(await crypto.subtle.digest('SHA-256', all)) };
  }
  /** @type {any} */ (window).__bench = { timed };
  return { fetchWrapped: !String(fetch).includes('[native code]'), bareNative: String(nativeFetch).includes('[native code]') };
}

/** @param {string} url @param {boolean} native */
export function timedFetch(url, native) {
  return /** @type {any} */ (window).__bench.timed(url, native);
}
