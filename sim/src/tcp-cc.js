// A TCP connection's congestion window (segments), as Linux grows and cuts it:
// - cubic (RFC 9438, Linux's default): slow start (+1 per acknowledged segment) up to ssthresh;
//   past it W(t) = C·(t − K)³ + Wmax (t in s since the epoch began, K = ∛(Wmax·(1 − β)/C)),
//   never below the TCP-friendly (Reno) estimate; a loss event (at most one per round trip,
//   the caller's recovery rule) sets Wmax = cwnd (less with fast convergence) and cwnd = β·cwnd;
//   a retransmission timeout sets cwnd to 1 and ssthresh to β·cwnd.
// - bbr: paces at the bottleneck rate and ignores random loss: slow start up to BBR's probing
//   gain × the path's BDP (what its pacing keeps in flight), no cut on a loss event nor on a timeout (BBR restores its window
//   once the lost segment is repaired).
// HyStart (on in Linux's cubic) ends slow start when the round trip grows: the caller tells
// (exitSlowStart). Not modelled: PRR's pacing of the recovery, BBR's probing cycles.

/** RFC 9438: multiplicative decrease on a loss event. */
export const CUBIC_BETA = 0.7;
/** RFC 9438: cubic's scaling constant, segments/s³. */
export const CUBIC_C = 0.4;
/** RFC 9438 4.3: the Reno-friendly estimate's additive increase, segments per window. */
const CUBIC_RENO_ALPHA = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
/** Lowest cwnd after a loss event (segments): Linux's tcp_cubic ssthresh floor. */
const TCP_MIN_CWND_SEGMENTS = 2;
/**
 * BBR's highest pacing gain in ProbeBW: paced at the bottleneck rate, it keeps at most this many
 * BDPs in flight (its cwnd, 2 BDP, does not bind); the simulated sender is not paced, so its
 * window stands for the pacing.
 */
const BBR_PROBE_GAIN = 1.25;
/** Linux's initial congestion window (segments), RFC 6928. */
export const TCP_INITIAL_CWND_SEGMENTS = 10;

/** @typedef {'cubic' | 'bbr'} TcpCcKind */
export const TCP_CC_KINDS = Object.freeze(/** @type {TcpCcKind[]} */ (['cubic', 'bbr']));

/**
 * What a connection's window carries from one download to the next.
 * @typedef {{ cwnd: number, ssthresh: number, wMax: number }} TcpCcState
 */

/**
 * The window of a connection idle for `idleMs` since its last download (Linux's
 * tcp_cwnd_restart, tcp_slow_start_after_idle on): halved for each RTO that passed, not below
 * the initial window (nor above the old one); ssthresh remembers ¾ of the old window.
 * bbr keeps its window: Linux skips the restart for a module with its own cong_control, and
 * BBR's bandwidth estimate outlives the idle time.
 * @param {TcpCcKind} kind @param {TcpCcState} s @param {number} idleMs @param {number} rtoMs
 * @returns {TcpCcState}
 */
export function afterIdle(kind, s, idleMs, rtoMs) {
  if (kind === 'bbr') return s;
  const restart = Math.min(TCP_INITIAL_CWND_SEGMENTS, s.cwnd);
  let cwnd = s.cwnd;
  for (let left = idleMs - rtoMs; left > 0 && cwnd > restart; left -= rtoMs) cwnd /= 2;
  return { cwnd: Math.max(cwnd, restart), ssthresh: Math.max(s.ssthresh, (3 / 4) * s.cwnd), wMax: s.wMax };
}

/**
 * @param {TcpCcKind} kind
 * @param {number} bdpSegments  the path's bandwidth-delay product (bbr's window is a multiple of it)
 * @param {TcpCcState | null} [prior]  a kept connection's window (afterIdle); null: a new one's
 */
export function createTcpCc(kind, bdpSegments, prior = null) {
  const bbrCap = Math.max(TCP_INITIAL_CWND_SEGMENTS, BBR_PROBE_GAIN * bdpSegments);
  let cwnd = prior ? Math.min(prior.cwnd, kind === 'bbr' ? bbrCap : Infinity) : TCP_INITIAL_CWND_SEGMENTS;
  let ssthresh = kind === 'bbr' ? bbrCap : prior ? prior.ssthresh : Infinity;
  let wMax = prior ? prior.wMax : 0;
  /** the congestion-avoidance epoch's start (ms), -1: starts at the next acknowledgement */
  let epochAt = -1;
  let k = 0;
  let renoW = 0;
  const cc = {
    kind,
    get cwnd() {
      return cwnd;
    },
    get ssthresh() {
      return ssthresh;
    },
    /** `acked` segments acknowledged at `now` (ms). @param {number} acked @param {number} now */
    onAck(acked, now) {
      if (cwnd < ssthresh) {
        cwnd = Math.min(cwnd + acked, kind === 'bbr' ? ssthresh : Infinity);
        return;
      }
      if (kind === 'bbr') return;
      if (epochAt < 0) {
        epochAt = now;
        if (wMax < cwnd) wMax = cwnd;
        k = Math.cbrt((wMax * (1 - CUBIC_BETA)) / CUBIC_C);
        renoW = cwnd;
      }
      const t = (now - epochAt) / 1000;
      const target = CUBIC_C * (t - k) ** 3 + wMax;
      renoW += (CUBIC_RENO_ALPHA * acked) / renoW;
      const goal = Math.max(target, renoW);
      if (goal > cwnd) cwnd += ((goal - cwnd) * acked) / cwnd;
    },
    /** A loss event (the caller allows one per round trip). */
    onLoss() {
      if (kind === 'bbr') return;
      // fast convergence (RFC 9438 4.7): a flow whose Wmax fell releases bandwidth sooner
      wMax = cwnd < wMax ? (cwnd * (1 + CUBIC_BETA)) / 2 : cwnd;
      cwnd = Math.max(cwnd * CUBIC_BETA, TCP_MIN_CWND_SEGMENTS);
      ssthresh = cwnd;
      epochAt = -1;
    },
    /** @returns {TcpCcState} */
    state() {
      return { cwnd, ssthresh, wMax };
    },
    /** HyStart saw the round trip grow: congestion avoidance from here. */
    exitSlowStart() {
      if (kind === 'cubic' && cwnd < ssthresh) ssthresh = cwnd;
    },
    /** A retransmission timeout. */
    onTimeout() {
      if (kind === 'bbr') return;
      wMax = cwnd;
      ssthresh = Math.max(cwnd * CUBIC_BETA, TCP_MIN_CWND_SEGMENTS);
      cwnd = 1;
      epochAt = -1;
    },
  };
  return cc;
}
