// Whether a sender puts several datagrams in one data-channel message (a bundle) for a client
// that takes bundles. A bundle costs one message's per-message work (the proxy's native send, the
// client's receive hop and event) for up to three packets, but it is lost whole when any of the
// SCTP packets carrying it is: on a lossy path it multiplies the datagrams lost by about the
// packets per bundle, and a coded download pays each lost datagram in goodput. So a sender bundles
// while the loss it learns from feedback is low and sends one datagram per message otherwise.
// Sans-IO: fed the echo and the loss count the sender already has, per download.

/**
 * Datagram loss above which bundling stops (fraction of the datagrams echoed, while bundled). A
 * bundle of three spans three SCTP packets, so this is about 0.5% per packet: there a bundle
 * costs a coded download ~1% of its goodput, and paths with more loss are not fast enough for the
 * per-message cost to matter.
 */
export const BUNDLE_STOP_LOSS = 0.015;

/**
 * Datagram loss below which bundling resumes (fraction, one datagram per message). A third of
 * BUNDLE_STOP_LOSS, so that the tripled loss of bundles does not flip it back at once.
 */
export const BUNDLE_RESUME_LOSS = BUNDLE_STOP_LOSS / 3;

/** Losses before bundling may stop: a single early loss says little about the rate. */
export const BUNDLE_MIN_LOSSES = 3;

/** Datagrams echoed, one per message, before bundling may resume: enough to see a 0.5% loss rate. */
export const BUNDLE_RESUME_MIN_ECHOED = 600;

/** The tally's memory (datagrams echoed): past twice this, both counts are halved, so old loss fades. */
export const BUNDLE_TALLY_PACKETS = 1000;

/**
 * One per data channel (its downloads share the path): bundling starts on and follows the loss.
 * @returns {{ startDownload(): void, onEcho(echo: number): void, onLost(total: number): void, readonly bundling: boolean, readonly switches: number }}
 */
export function createBundleSizer() {
  let bundling = true;
  let switches = 0;
  let echoed = 0; // datagrams echoed (arrived or learnt lost) since the last switch, decayed
  let lost = 0; // of them, lost
  let lastEcho = 0; // this download's highest echo so far
  let lastLost = 0; // this download's loss count so far

  function judge() {
    if (echoed > 2 * BUNDLE_TALLY_PACKETS) {
      echoed /= 2;
      lost /= 2;
    }
    const next = bundling
      ? !(lost >= BUNDLE_MIN_LOSSES && lost > BUNDLE_STOP_LOSS * echoed)
      : echoed >= BUNDLE_RESUME_MIN_ECHOED && lost < BUNDLE_RESUME_LOSS * echoed;
    if (next === bundling) return;
    bundling = next;
    switches++;
    echoed = 0; // the other way of sending loses at another rate: count afresh
    lost = 0;
  }

  return {
    /** A new download on the channel: its echoes and loss count start at 0. */
    startDownload() {
      lastEcho = 0;
      lastLost = 0;
    },
    /** The highest seq the client echoed (this download's; ignored unless it grew). @param {number} echo */
    onEcho(echo) {
      if (!Number.isInteger(echo) || echo <= lastEcho) return;
      echoed += echo - lastEcho;
      lastEcho = echo;
      judge();
    },
    /** The sender's running count of this download's datagrams it learnt were lost. @param {number} total */
    onLost(total) {
      if (!Number.isInteger(total) || total <= lastLost) return;
      lost += total - lastLost;
      lastLost = total;
      judge();
    },
    /** may the next datagrams share a message? */
    get bundling() {
      return bundling;
    },
    /** times bundling stopped or resumed */
    get switches() {
      return switches;
    },
  };
}
