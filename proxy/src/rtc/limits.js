// Named limits of the proxy's WebRTC side. Each one says its unit and why it exists.

/** Largest POST /rtc/offer body (bytes): an offer for one data channel is ~1 KB; this refuses junk early. */
export const MAX_OFFER_BODY_BYTES = 64 * 1024;

/** Largest SDP string accepted (characters): same reason, checked after JSON parsing. */
export const MAX_SDP_CHARS = 32 * 1024;

/** Concurrent WebRTC sessions (peer connections) per proxy, default (`--max-sessions`): each holds native sockets and a
 * thread's worth of work; past it a new offer is refused with 503 ERR_PROXY_BUSY before any RTCPeerConnection exists, so
 * the client picks another proxy. */
export const DEFAULT_MAX_SESSIONS = 64;

/** ICE gathering must finish within this (ms): host candidates on a LAN gather in milliseconds. */
export const ICE_GATHER_TIMEOUT_MS = 5000;

/**
 * A peer whose data channel has not opened by then (ms) is closed: the client gave up or never connected.
 * A client opens its channel within ~3 round trips of our answer (ICE, DTLS, SCTP): well under a second even at
 * 300 ms RTT; 5 s frees a slot a flood of never-connecting offers holds three times sooner than 15 s did.
 */
export const CHANNEL_OPEN_TIMEOUT_MS = 5000;

/** Peers not yet open per ticket client id (count): a client sets up one peer per proxy at a time; a retry may overlap. */
export const MAX_PENDING_PEERS_PER_CLIENT = 2;

/** Peers not yet open per client address (count): a few clients behind one NAT; a flood from one address gets no more. */
export const MAX_PENDING_PEERS_PER_ADDRESS = 8;

/** A session with no inbound message and nothing to send for this long (ms) is closed to free its slot. */
export const SESSION_IDLE_TIMEOUT_MS = 30_000;

/** How often idle sessions are looked for (ms). */
export const IDLE_SWEEP_EVERY_MS = 1000;

/**
 * Ceiling of the channel's send queue (bytes of bufferedAmount). node-datachannel's send() never
 * refuses and its queue has no cap, so the sender caps it; 256 KiB is ~5 ms of loopback line rate.
 */
export const SEND_HIGH_WATER_BYTES = 256 * 1024;

/**
 * The send queue holds about this much time (ms) of the channel's measured drain rate: every
 * queued packet was picked on feedback that is this much older when it leaves (the simulator
 * asks for a packet only when the link is free). 15 ms ≈ 14 KB at 896 KiB/s.
 * bufferedAmount is only libdatachannel's own queue: usrsctp takes packets at once and queues them
 * out of sight (testbed: bufferedAmount 0 with ~230 packets in flight; setSctpSettings sendBufferSize
 * 8 KiB or 128 KiB changed nothing), so the in-flight cap (@mutp/protocol createInflightLimit) is what bounds the real queue.
 */
export const SEND_QUEUE_TARGET_MS = 15;

/** Smallest queue cap (bytes): 6 packets of 1200 B, so the link never idles between pump wake-ups. */
export const SEND_QUEUE_FLOOR_BYTES = 6 * 1200;

/** Queue cap before the first drain-rate sample (bytes): ~35 ms at 896 KiB/s; grows at once on a fast link. */
export const SEND_QUEUE_INITIAL_BYTES = 32 * 1024;

/** Drain-rate sample length (ms): several packets even at 896 KiB/s (~0.9 packet/ms). */
export const DRAIN_SAMPLE_MS = 20;

/** Weight of a new drain-rate sample in the moving average (0..1): smooths SCTP's bursty refills. */
export const DRAIN_EWMA_WEIGHT = 0.25;

/** While the in-flight cap holds, look again after this long (ms) if no feedback wakes the pump first. */
export const INFLIGHT_RECHECK_MS = 10;

/**
 * A streamed download whose client has every packet waits for its origin's last bytes to send their
 * checksums; the origin's bytes wake it, this is only the fallback look (ms).
 */
export const OWED_CHECKSUMS_RECHECK_MS = 100;

/**
 * When the sender's window allows nothing, wait this long (ms) for feedback before asking again:
 * the sender may unblock with time alone (in-transit packets expire), and lost feedback must not stall it.
 */
export const BLOCKED_RECHECK_MS = 50;

/** Yield to the event loop after this many packets, so inbound feedback is read while pumping. */
export const YIELD_EVERY_PACKETS = 64;

/**
 * Largest inbound data-channel message (bytes) handed to the decoder; anything bigger is peer junk
 * (every MUTP message is ≤ 1200 B). SCTP itself refuses more than SCTP_MAX_MESSAGE_BYTES.
 */
export const MAX_INBOUND_MESSAGE_BYTES = 2 * 1024;

/**
 * Largest MUTP datagram we send (bytes): fits one SCTP chunk under a 1280-byte IPv6 MTU path. A
 * client that asks for bundles gets a few in one message (at most MAX_BUNDLE_BYTES, docs/protocol.md).
 */
export const MAX_OUTBOUND_MESSAGE_BYTES = 1200;

/**
 * Largest SCTP message either side may send on our associations (bytes; our local
 * maxMessageSize, advertised in the SDP). Every MUTP message is ≤ 1200 B, a bundle ≤ 4096 B
 * (MAX_BUNDLE_BYTES). libdatachannel also
 * raises usrsctp's send buffer to at least this, so its default (256 KiB, ~290 ms at 896 KiB/s)
 * would hide that much queue below bufferedAmount.
 */
export const SCTP_MAX_MESSAGE_BYTES = 4 * 1024;

/**
 * usrsctp's send buffer per association (bytes): data sent but not yet cumulatively acked plus
 * data queued in usrsctp. Past it libdatachannel keeps messages in its own queue, where
 * bufferedAmount (and so channel-sender.js) sees them. What the proxy queues is bounded by the
 * in-flight limit, not by this; but under random loss every chunk after a lost one stays here
 * until the FORWARD-TSN for it comes back acked (about 1.5 round trips), and usrsctp charges each
 * ~1.1 KB message a 2 KB cluster. 128 KiB held the loss-tolerant sender to 0.77-0.85 of its paced
 * rate at 5% loss (namespaces, RTT 50 ms, 896 KiB/s, paced at 700 KiB/s); 512 KiB to 0.88-0.95
 * (0.95: the loss itself). libdatachannel's default is 1 MiB.
 */
export const SCTP_SEND_BUFFER_BYTES = 512 * 1024;

/**
 * usrsctp's max burst (packets per output pass; < 0 disables). usrsctp cuts cwnd to flight +
 * max burst after each pass, so a download on a kept, idle association restarts from this many
 * packets, and the initial window is capped at it too: libdatachannel's 10 is 11 ms at
 * 896 KiB/s, a quarter of the window at RTT 50 ms. Disabled, usrsctp sends what it is given at
 * once, which overruns a shaped link's queue (testbed: 50 ms, ~30 packets at 896 KiB/s), so the
 * session paces its packets (the in-flight limit's pacing, on in every build). Only the tuned
 * build (proxy/native) passes it; the stock build keeps 10. Measured: proxy/native/README.md.
 */
export const SCTP_MAX_BURST_PACKETS = -1;

/**
 * usrsctp's initial congestion window for a new association (packets; tuned build only: the
 * stock build's max burst of 10 caps it at 10 anyway). A new connection to a client the proxy has
 * measured before (the path cache) is paced at that client's rate by the in-flight limit, so the
 * window only has to stay out of the way: with libdatachannel's 10, doubling per round trip, a
 * download on new connections spent 60-80 ms ramping (testbed, RTT 50 ms, 896 KiB/s links, 4
 * proxies: 2439 KiB/s against 2808 on kept ones; with 40, 2769). To an unmeasured client the
 * in-flight limit allows INFLIGHT_INITIAL_PACKETS (16) until its first delivery sample.
 */
export const SCTP_TUNED_INITIAL_CWND_PACKETS = 40;

/**
 * The tuned build's sender leaves random loss out of SCTP's congestion response (tuned build
 * only; MUTP_SCTP_LOSS_TOLERANT=0 restores usrsctp's). Every MUTP packet goes unordered with no
 * retransmission: a coded packet lost is replaced by any later one, an uncoded one is re-sent by
 * the protocol. usrsctp counts each such abandoned chunk as a fast retransmit and halves cwnd, so
 * at RTT 50 ms 1% random loss cut Coded MUTP to 0.36 of its lossless goodput. With it on, SCTP
 * backs off only on a T3 timeout; the in-flight limit's congestion controller (@mutp/protocol
 * createInflightLimit) owns the response to a queue and to heavy loss.
 */
export const SCTP_LOSS_TOLERANT = true;
