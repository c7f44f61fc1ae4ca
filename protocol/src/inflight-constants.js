// Limits of the in-flight cap (inflight-limit.js), the pacing a source applies on top of its
// sender's window: the proxy and the simulator use the same numbers. Each says its unit and why.

/**
 * In-flight cap: packets sent but not yet echoed are kept at the delivery rate × (min RTT + this
 * queue, ms). 15 ms of queue keeps the link busy through feedback jitter and keeps choices fresh.
 */
export const INFLIGHT_QUEUE_TARGET_MS = 15;

/**
 * Most of the cap (ms at the delivery rate) that bunched echoes may add (inflight-limit.js, echo
 * aggregation): beyond it a stalled client is not bunching but gone quiet, and a source would
 * fill the queue ahead of it.
 */
export const INFLIGHT_ACK_AGGREGATION_MAX_MS = 40;

/** Never fewer than this in flight (packets): the link must not idle between feedbacks. */
export const INFLIGHT_FLOOR_PACKETS = 6;

/**
 * …and never fewer than this many feedback intervals (× the download's feedbackEvery): the client
 * answers every feedbackEvery packets, so a cap below that waits for its feedbackMaxDelayMs timer
 * each round, the delivery-rate sample falls with it and the cap never recovers (testbed, one
 * 896 KiB/s proxy: after one lost packet a 4 MiB download crawled at 127 KiB/s with a floor of 6).
 */
export const INFLIGHT_FLOOR_FEEDBACK_INTERVALS = 2;

/** In flight before the first rate sample (packets): the first feedback comes after 8 packets at the client. */
export const INFLIGHT_INITIAL_PACKETS = 16;

/**
 * Start-up gain of the in-flight cap on a path not measured yet: until a queue shows, the cap may reach
 * this × rate × min RTT, i.e. about doubles each round trip (as TCP's slow start). Testbed, RTT
 * 50 ms, 4×896 KiB/s: without it the cap ramps ×1.3 per round trip from 16 packets, ~200 ms.
 */
export const INFLIGHT_STARTUP_GAIN = 2;

/** Delivery-rate sample length (ms): several feedbacks even at 896 KiB/s. */
export const INFLIGHT_RATE_SAMPLE_MS = 20;

/** Weight of a lower delivery-rate sample (0..1): a sample may be app-limited, so the estimate falls slowly. */
export const INFLIGHT_RATE_DOWN_WEIGHT = 0.25;

/**
 * Pacing (when the source asks for it: its SCTP sends what it is given at once, max burst off):
 * packets leave at this × the delivery rate, so a download on a kept connection fills its first
 * round trip without bursting a whole window into the bottleneck's queue. Simulator, RTT 50 ms,
 * 1.5 MiB, the testbed's 50 ms shaper queue, kept connections: 4×896 KiB/s 2732 → 2796 KiB/s,
 * 1×1792 + 3×896 3208 → 3381, 1×1792 1432 → 1489 (against max burst 30, unpaced); max burst off
 * unpaced collapses to ~1300 (the queue overflows, SCTP halves its window).
 */
export const INFLIGHT_PACING_GAIN = 1.25;

/** Pacing gain before the first queue shows on a connection with no kept path: the ramp must not be slower than unpaced (×3 simulated best of 2, 3, 4). */
export const INFLIGHT_PACING_STARTUP_GAIN = 3;

/** Packets a paced source may send back to back (its token bucket): timers fire at ~1 ms, and 4 stay far below any queue. */
export const INFLIGHT_PACING_BURST_PACKETS = 4;

/** With no new echo for this long (ms) one probe packet passes the cap (the protocol's minRtoMs): feedback or all our packets were lost. */
export const INFLIGHT_STALL_MS = 200;

/**
 * A source remembers what its last download to a client measured (delivery rate, min RTT) for this
 * long (ms), so that download's next connection starts paced at that rate instead of ramping up
 * from INFLIGHT_INITIAL_PACKETS (as TCP keeps a destination's metrics for its next connection). A
 * viewer's client reconnects within seconds to minutes (a new page load, a one-off download); a
 * path older than this may have changed and is measured again.
 */
export const PATH_CACHE_MAX_AGE_MS = 5 * 60_000;

/** Clients whose path a source remembers (count; the least recently used is forgotten): bounds a proxy's memory. */
export const PATH_CACHE_MAX_ENTRIES = 4096;
