// Named limits of the proxy's HTTP side and origin fetching; each says its unit and why.
// (WebRTC limits, the session cap among them, live in rtc/limits.js; the cache size and object size in config/resolve-config.js.)

/** Concurrent GET /fetch responses, default: each holds a socket and a slice of the cache; past it 503 ERR_PROXY_BUSY. */
export const DEFAULT_MAX_HTTP_FETCHES = 128;

/** Concurrent origin downloads (distinct URLs, cache misses), default: bounds the proxy's outbound
 * bandwidth and memory (each up to maxObjectBytes); past it 503 ERR_PROXY_BUSY rather than queueing. */
export const DEFAULT_MAX_ORIGIN_FETCHES = 16;

/** Requests per minute per client address to /fetch and /rtc/offer, default: a parallel-HTTP download of a
 * 5 MB chunk makes ~N requests; 600/min leaves room for a page's worth of chunks and still stops floods. 0 = off. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** Rate-limit window, ms. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** A Range-split first share of an object the origin is still sending waits this long (ms) for
 * the whole object, so that its head carries the object's digest list (a local origin's 1.5 MiB
 * is whole in ~10 ms on the testbed). Past it the share's bytes go as they come and the client
 * asks for the list (that request waits for the whole object): a slow or distant origin's first
 * bytes no longer wait for its last. */
export const SHARE_LIST_WAIT_MS = 20;


/** A request's headers must arrive within this (ms): slowloris connections are closed after it. */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;

/** A whole request must arrive within this (ms): every request a proxy takes is small (a GET, or an offer of ≤ 64 KiB). */
export const HTTP_REQUEST_TIMEOUT_MS = 10_000;

/** How often Node checks the two timeouts above (ms); its default of 30 s would let a stalled request live 40 s. */
export const HTTP_TIMEOUT_CHECK_MS = 1000;
