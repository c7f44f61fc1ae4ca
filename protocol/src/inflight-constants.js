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
 * Most in flight before the first rate sample when the source knows its uplink and the round trip
 * its transport measured while connecting (packets): it starts with uplink × that round trip, one
 * round trip's worth, up to the tuned build's SCTP initial window (40 packets), beyond which SCTP
 * holds the packets anyway. A new connection then fills its first round trip instead of sending 16
 * packets and waiting for their echoes.
 */
export const INFLIGHT_INITIAL_MAX_PACKETS = 40;

/**
 * Start-up gain of the in-flight cap on a path not measured yet: until a queue shows, the cap may reach
 * this × rate × min RTT, i.e. about doubles each round trip (as TCP's slow start). Testbed, RTT
 * 50 ms, 4×896 KiB/s: without it the cap ramps ×1.3 per round trip from 16 packets, ~200 ms.
 * BBR's start-up gain, 2/ln 2: the rate samples span a round trip, so they lag the growth by one.
 */
export const INFLIGHT_STARTUP_GAIN = 2.89;

/** Delivery-rate sample length (ms): several feedbacks even at 896 KiB/s. */
export const INFLIGHT_RATE_SAMPLE_MS = 20;

/**
 * The bottleneck rate is the most delivered in any of this many round trips (BBR's windowed max
 * filter): a sample taken while the source had little to send, or while echoes came late, does
 * not lower it, and a path whose share fell is seen within this many round trips.
 */
export const INFLIGHT_BW_WINDOW_ROUNDS = 10;

/**
 * Pacing and in-flight gains of the probing cycle, one phase per min RTT (BBR's ProbeBW): a round
 * trip at 1.25× looks for more rate, the next at 0.75× drains the queue that probe made, then six
 * at 1×. The in-flight cap is rate × (gain × min RTT + queue target). When the source paces (its
 * SCTP sends what it is given at once, max burst off), packets leave at the phase's gain × the
 * rate, so a download on a kept connection, which starts in the probing phase, fills its first
 * round trip without bursting a window into the bottleneck's queue. Simulator, RTT 50 ms, 1.5 MiB,
 * the testbed's 50 ms shaper queue, kept connections, paced at 1.25× throughout: 4×896 KiB/s
 * 2732 → 2796 KiB/s, 1×1792 + 3×896 3208 → 3381 (against max burst 30, unpaced); max burst off
 * unpaced collapses to ~1300 (the queue overflows, SCTP halves its window).
 */
export const INFLIGHT_PROBE_GAINS = Object.freeze([1.25, 0.75, 1, 1, 1, 1, 1, 1]);

/**
 * A probe whose own packets were delivered this much faster than the rate it started from (factor)
 * found room: the path is far from full and the source starts up again (about ×2 per round trip)
 * instead of probing ×1.25 once per cycle. An estimate gone low (a cold start cut short, a path
 * that freed up) otherwise took several downloads to recover: testbed, 4×896 KiB/s, RTT 50 ms, 5%
 * loss, one source's cold start ended at 0.06 of its link and climbed ~×1.3 per 1.5 MiB download.
 * On a full path the probe's packets come no faster than the link (the max filter holds it), so
 * this stays below the threshold.
 */
export const INFLIGHT_PROBE_ROOM_GROWTH = 1.1;

/** Index in INFLIGHT_PROBE_GAINS of the draining phase: after start-up, a standing queue or heavy loss. */
export const INFLIGHT_DRAIN_PHASE = 1;

/** Shortest phase of the probing cycle (ms): on a LAN (min RTT < 1 ms) a phase still spans several feedbacks. */
export const INFLIGHT_PHASE_MIN_MS = 10;

/**
 * Start-up ends when the delivered rate grew less than this factor over INFLIGHT_STARTUP_FLAT_ROUNDS
 * round trips (BBR: 1.25 over 3): the path is full even if no queue showed (a shaper that drops
 * instead of queueing).
 */
export const INFLIGHT_STARTUP_GROWTH = 1.25;
/** See INFLIGHT_STARTUP_GROWTH (round trips). */
export const INFLIGHT_STARTUP_FLAT_ROUNDS = 3;

/**
 * Start-up ends on a queue when this many echoes in a row come back above min RTT + the queue
 * target (count). One late echo is often the client's, not the path's: a busy client answers
 * 10-30 ms late (testbed, RTT 50 ms: echoes at 76-82 ms while 14-24 packets were in flight, the
 * client decoding three other sources), and a start-up ended by it left a 1792 KiB/s source at
 * 0.2-0.4 of its link. Each echo answers feedbackEvery packets, so two in a row cost a few ms of
 * growth.
 */
export const INFLIGHT_STARTUP_QUEUE_ECHOES = 2;

/**
 * A standing queue: every RTT of this many round trips in a row above min RTT + this (ms). Our
 * own queue stays near INFLIGHT_QUEUE_TARGET_MS plus the echo lag; a queue that does not drain
 * in a cruising round trip is another flow's or a stale rate estimate's, and the source drains
 * (one phase at the drain gain) instead of holding it.
 */
export const INFLIGHT_STANDING_QUEUE_MS = 40;
/** See INFLIGHT_STANDING_QUEUE_MS (round trips). */
export const INFLIGHT_STANDING_QUEUE_ROUNDS = 2;

/**
 * Loss that means congestion (fraction of packets sent): random loss on the worst links a viewer
 * chooses this protocol for (Wi-Fi, mobile: 0.5-5%) stays far below it, a queue that overflows
 * because several senders overran it does not. Above it the bottleneck rate is cut by
 * INFLIGHT_LOSS_BETA and the source drains. MUTP packets are never re-sent by SCTP (coded: any
 * later packet replaces a lost one), so random loss is not a congestion signal.
 */
export const INFLIGHT_LOSS_THRESHOLD = 0.2;
/**
 * Packets echoed before a loss rate is judged (2-3 round trips at 896 KiB/s, RTT 50 ms): at 5%
 * random loss 17 of 80 lost is a 1-in-10⁵ event. The coded sender's count runs above the loss
 * itself over short spans (testbed, 5%: 22-24% over some 40-packet spans, why is not known), and
 * over 40 packets 5% loss was taken for congestion about once per proxy per two 1.5 MiB downloads.
 */
export const INFLIGHT_LOSS_MIN_PACKETS = 80;
/** Multiplicative decrease of the bottleneck rate on congestive loss (as cubic's β). */
export const INFLIGHT_LOSS_BETA = 0.7;

/** Pacing gain before the first queue shows on a connection with no kept path: the ramp must not be slower than unpaced (×3 simulated best of 2, 3, 4). */
export const INFLIGHT_PACING_STARTUP_GAIN = 3;

/**
 * The pacing's ceiling over the source's own uplink (factor, createInflightLimit's uplinkRate):
 * paced at exactly the uplink's rate, a sender that wakes late (timers, a busy event loop) leaves
 * the link idle for good; a little over it, a queue of a few ms forms instead and the in-flight
 * cap bounds it.
 */
export const INFLIGHT_UPLINK_HEADROOM = 1.05;

/** Packets a paced source may send back to back (its token bucket), at least: timers fire at ~1 ms, and 4 stay far below any queue. */
export const INFLIGHT_PACING_BURST_PACKETS = 4;

/**
 * …or this long at the bottleneck rate (ms), when that is more: a timer wakes the sender about once
 * per ms, later on a busy loop, so a bucket of 4 packets capped a fast path at ~4 packets per wake.
 * On loopback (`npm run bench:cost -- --rtc-build tuned`: 4 proxies, 32 MiB) Coded MUTP ran at 7.5
 * MB/s with the proxies spending 133 ms of CPU per MB; with 4 ms, 18-22 MB/s at 52-63 ms per MB
 * (1 or 2 ms gave 10-11 MB/s). At the testbed's 0.7-1.5 packets/ms the bucket is 4-6 packets.
 */
export const INFLIGHT_PACING_BURST_MS = 4;

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

/**
 * A min RTT not seen again for this long (ms) is forgotten for the lowest RTT of the latest round
 * trip (BBR's min-RTT window): a path whose base delay rose (a route change) must not keep the cap
 * too small, nor one that fell keep it too large.
 */
export const INFLIGHT_MIN_RTT_WINDOW_MS = 10_000;
