// Wire-format numbers and protocol defaults. Every limit names its unit and its reason.

/** Wire format version; a datagram with another version is refused. */
export const WIRE_VERSION = 1;

/** Largest datagram we send or accept, headers included (paper III: larger WebRTC messages fragment). */
export const MAX_DATAGRAM_BYTES = 1200;

/** Bytes of the header every message starts with: version u8, type u8, downloadId u32. */
export const COMMON_HEADER_BYTES = 6;

/** SCTP common header + DATA chunk header (bytes) on every packet that carries a datagram. */
export const SCTP_PACKET_OVERHEAD_BYTES = 28;

/** DTLS 1.2 record overhead (bytes) on every packet: 13-byte header, 8-byte explicit nonce, 16-byte AES-GCM tag. */
export const DTLS_RECORD_OVERHEAD_BYTES = 37;

/** What a shaper of the sender's uplink counts besides the packet (bytes): Ethernet 14 + IPv4 20 + UDP 8 (htb counts the frame). */
export const UPLINK_FRAME_OVERHEAD_BYTES = 42;

/** Header bytes of an uncoded data message: common header + seq u32 + index u32. */
export const DATA_HEADER_BYTES = COMMON_HEADER_BYTES + 8;

/** Header bytes of a coded data message before the coefficients: common + seq u32 + generation u32 + symbols u16. */
export const CODED_HEADER_BYTES = COMMON_HEADER_BYTES + 10;

/** Meta header bytes before the optional checksum block (common + layout 22 + serverFetchMs u32). */
export const META_HEADER_BYTES = COMMON_HEADER_BYTES + 26;

/** Checksum block header in a meta message: algo u8, entry bytes u8, first unit u32, count u16. */
export const META_CHECKSUM_HEADER_BYTES = 8;

/** Feedback header bytes before the per-source echo: common + mode u8 + sourceCount u8 + feedback seq u32. */
export const FEEDBACK_HEADER_BYTES = COMMON_HEADER_BYTES + 6;

/** Message type codes (byte 1 of every datagram). */
export const MSG = Object.freeze({
  request: 1,
  meta: 2,
  data: 3,
  coded: 4,
  feedback: 5,
  done: 6,
  error: 7,
  hint: 8,
  bundle: 9,
  timing: 10,
});

/** Transfer mode codes on the wire. */
export const MODE = Object.freeze({ uncoded: 1, coded: 2 });

/** Scheduler codes on the wire (request). */
export const SCHEDULER = Object.freeze({
  // paper III.A/B: Uncoded picks uniformly at random, Coded sends the rarest generation
  paper: 0,
  // Coded only: rarest generation first, but each source also counts the others' estimated
  // in-flight share (from the per-source echo in feedback) so N senders do not overfill a generation
  share: 1,
});

/** Largest object we serve: the receiver holds it in memory; video chunks are a few MB. */
export const MAX_OBJECT_BYTES = 2 ** 30;

/** Most sources one download may use: feedback echoes one u32 per source and must fit a datagram. */
export const MAX_SOURCES = 32;

/**
 * A proxy's default limit on one origin fetch, every redirect hop included (ms). A proxy answers an
 * HTTP request for an object it has to fetch first only once it has it, so a live proxy answers
 * within this, or fails with ERR_ORIGIN_TIMEOUT; a client waits this long for an answer's head.
 */
export const ORIGIN_FETCH_TIMEOUT_MS = 30_000;

/**
 * A proxy gives up an origin fetch whose body sent nothing for this long (ms), with
 * ERR_ORIGIN_TIMEOUT: under the clients' 5 s stall timers, so a client learns that the origin
 * stalled (and blames it, not the proxy) before it would drop the proxy as silent. An origin that
 * stopped mid-body otherwise held a Range-split download 30 s, and a proxy's fetch slot as long.
 */
export const ORIGIN_IDLE_TIMEOUT_MS = 3000;

/** Longest URL any part accepts, logs or forwards (characters): video URLs carry long signed query strings.
 * (A MUTP request carries at most MAX_URL_BYTES of UTF-8 in its datagram.) */
export const MAX_URL_CHARS = 8192;

/** How long a proxy keeps an idle HTTP connection open (ms). Longer than a client's gap between
 * two segments once its buffer is full, and than its re-warm interval: a download (or a page loaded
 * again) finds the connection open instead of paying TCP's and TLS's handshakes. Node's default is 5 s. */
export const PROXY_HTTP_IDLE_MS = 65_000;

/** Largest window in packets: an uncoded feedback bitmap of w bits (w/8 bytes) must fit a datagram. */
export const MAX_WINDOW_PACKETS = 8192;

/** Largest generation: DoF is a u16 on the wire; the real bound is the datagram (see maxGenerationSize). */
export const MAX_GENERATION_SIZE = 255;

/** Smallest payload size in bytes: below this the 16-byte header dominates the datagram. */
export const MIN_PAYLOAD_BYTES = 16;

/** Request header bytes before the URL, and the longest URL (UTF-8 bytes) that fits one datagram. */
export const REQUEST_HEADER_BYTES = COMMON_HEADER_BYTES + 38;
export const MAX_URL_BYTES = MAX_DATAGRAM_BYTES - REQUEST_HEADER_BYTES;

/** Bundle header bytes before its datagrams: common header + count u8. Each datagram follows its u16 length. */
export const BUNDLE_HEADER_BYTES = COMMON_HEADER_BYTES + 1;

/**
 * Largest bundle (bytes): a few data or coded datagrams in one data-channel message, for a client
 * that asked for them. A browser handles every message as a task on the main thread of the
 * document that runs the download, and that per-message cost held a Chromium client to about
 * 5 MB/s on loopback; SCTP still carries a message in chunks of the path MTU. 4 KiB: the SCTP
 * message size our proxies advertise, under what browsers and libdatachannel take (≥ 64 KiB).
 */
export const MAX_BUNDLE_BYTES = 4096;

/** Hint header bytes before the URL: common header + URL length u16. */
export const HINT_HEADER_BYTES = COMMON_HEADER_BYTES + 2;

/** A timing message: common header + originMs u32 + prepareMs u32 (ms, rounded). */
export const TIMING_BYTES = COMMON_HEADER_BYTES + 8;

/**
 * Copies a source sends of each meta datagram, back to back (count). The client votes once a
 * majority of the proxies' metas are complete; a lost datagram cost the request re-send, 150 ms:
 * at 5% random loss (testbed, 4 proxies, RTT 50 ms, a meta of 2 datagrams) one download in ~8
 * started at ~205 ms instead of 55. Two copies lose both 1 time in 400 and cost two or three
 * datagrams of a download's ~1400 (1.5 MiB); a repeated slice is skipped.
 */
export const META_COPIES = 2;

/** The MUTP data channel's label. */
export const MUTP_CHANNEL_LABEL = 'mutp';

/**
 * The MUTP data channel: unordered and never retransmitted by SCTP (PR-SCTP), as each end sets
 * it: a lost coded packet is replaced by any later one, a lost uncoded one is re-sent by the
 * protocol.
 */
export const MUTP_CHANNEL_OPTIONS = Object.freeze({ ordered: false, maxRetransmits: 0 });

/**
 * The SCTP stream id both ends give the MUTP channel when the offer asks for it pre-agreed
 * (`negotiatedChannelId`, docs/protocol.md): each end creates it, so it opens with the SCTP
 * association instead of one round trip later (the in-band DATA_CHANNEL_OPEN and its ACK).
 * Even: the client is the DTLS server, whose in-band channels take odd ids (RFC 8832), so an
 * in-band channel the client opens beside it never collides with it.
 */
export const MUTP_NEGOTIATED_CHANNEL_ID = 0;

/** Error messages on the wire are cut to this many UTF-8 bytes so the datagram always fits. */
export const MAX_ERROR_MESSAGE_BYTES = 1024;

/** Error codes are short ASCII tokens like ERR_SSRF_BLOCKED. */
export const MAX_ERROR_CODE_BYTES = 64;

/**
 * Protocol defaults.
 * window/generationSize: paper Figure 11 (w=240, g=24 → 10 generations in the window).
 * payloadSize: paper III.A, packets of 1100 bytes.
 * feedbackEvery: packets between two feedback messages (paper III.A: feedback may be skipped;
 *   every WebRTC message costs an SCTP ack, so the paper skips most of it).
 * surplus: coded only, packets per generation a source may have in flight beyond the DoF still
 *   missing, to cover loss without waiting a round trip.
 * feedbackMaxDelayMs: the receiver also sends feedback when this long has passed since the last
 *   one and packets arrived since (keeps the tail moving when few packets are useful).
 * minRtoMs: a sender presumes an in-transit packet lost after max(minRtoMs, 2·RTT estimate)
 *   without news — the safety net when feedback itself is lost.
 */
export const DEFAULTS = Object.freeze({
  payloadSize: 1100,
  window: 240,
  generationSize: 24,
  feedbackEvery: 8,
  surplus: 0,
  feedbackMaxDelayMs: 20,
  minRtoMs: 200,
  scheduler: 'share',
});
