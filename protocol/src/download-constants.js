// Timing and tolerance of the client's download policy (download-controller.js): the live client
// and the simulator run the same numbers. Each says its unit and why.

/** Re-send a request that got no meta after this long (ms): the channel is unreliable, requests can be lost. */
export const REQUEST_RESEND_MS = 500;

/**
 * The first re-send comes sooner (ms): three round trips at the paper's RTT of 50 ms, when a proxy
 * that holds the object answers within one. At 5% random loss a download lost a request or a meta
 * datagram one time in four and waited the full REQUEST_RESEND_MS for it (testbed, 4 proxies, RTT
 * 50 ms: 553 ms before the first packet against 54). A re-sent request is harmless: the proxy
 * sends its meta again, or ignores it while it still fetches the object.
 */
export const REQUEST_RESEND_FIRST_MS = 150;

/**
 * A streamed meta's slice missing this long (ms) while later ones came gets the request re-sent
 * (the proxy then sends its whole meta so far again): both its copies were lost, and a generation
 * decoded before its checksum is held until it comes. One round trip at the paper's 50 ms: slices
 * go out in order, so a gap is rarely mere reordering.
 */
export const SLICE_GAP_RESEND_MS = 50;
/**
 * A proxy that has not sent its meta after this long (ms) is dropped: it covers the proxy's
 * origin fetch, which may be slow, but a proxy that stays silent is gone.
 */
export const META_TIMEOUT_MS = 20_000;

/**
 * Two proxies' checksums that tie on a unit wait this long (ms) after the vote for the metas of
 * the proxies still here that have sent none: one of them breaks the tie (a proxy whose origin
 * fetch ran slower, beside a liar that answered at once). Then the tie is the data's to settle,
 * as with no meta to come. At most half the no-progress timeout: the proxies whose generations
 * wait meanwhile are not dropped as silent, and a player waiting 4 s still has time to go direct.
 */
export const LATE_META_WAIT_MS = 2000;

/**
 * While the download makes no progress for this long (ms), every proxy that has been silent as
 * long is dropped: lets "all proxies gone" surface well within the 10 s a player waits.
 */
export const NO_PROGRESS_TIMEOUT_MS = 5000;

/**
 * A kept (pooled) connection whose proxy sent nothing this long (ms) after our request is taken as
 * dead (e.g. the proxy restarted and ICE has not noticed) and replaced by a new connection. Covers
 * the proxy's origin fetch from a warm cache and two request re-sends.
 */
export const REUSED_SILENT_MS = 1500;

/** Packets kept until the meta vote creates the receiver (count): a few windows' worth. */
export const MAX_PENDING_PACKETS = 8192;

/** Bad messages per proxy before that proxy is dropped as broken. */
export const MAX_MALFORMED_PER_PROXY = 1000;

/** Warnings about one proxy's bad messages before they are only counted: a hostile peer must not flood the log. */
export const MAX_WARNINGS_PER_PROXY = 3;

/**
 * Integrity (docs/protocol.md "Integrity"): after the first proxy's complete meta, wait this
 * long (ms) for the others' before voting on layout and checksums, unless all have answered or
 * a strict majority sent the same meta.
 * Short: on one host the metas arrive within milliseconds of each other; a late proxy is still
 * checked against the vote when its meta comes.
 */
export const META_QUORUM_WAIT_MS = 150;

/**
 * Proven corrupted packets (re-encoded from verified data, or refused by their own checksum)
 * after which a proxy is excluded. One: the channel is DTLS/SCTP, authenticated and
 * checksummed, so an honest proxy never delivers a corrupted packet.
 */
export const EXCLUDE_AFTER_BAD_PACKETS = 1;
