// How many of our packets may be in flight (sent, not yet echoed by the client's feedback), and
// how fast they leave: a source's congestion controller, in the spirit of BBR, on top of its
// sender's window (the proxy's live path; the simulator runs it too).
// node-datachannel hands every send straight to usrsctp, whose own queue bufferedAmount does not
// show (measured on the testbed: bufferedAmount 0 while 230 packets, ~300 ms, were on their way),
// and the proxy's tuned SCTP no longer backs off on random loss. So this is what keeps a path's
// queue short and yields to other flows:
// - the bottleneck rate: the most delivered per ms in any of the last INFLIGHT_BW_WINDOW_ROUNDS
//   round trips (a sample is packets echoed over the longer of their echo and send spans);
// - the min RTT, forgotten after INFLIGHT_MIN_RTT_WINDOW_MS;
// - in flight capped at rate × (gain × min RTT + a small queue), paced at gain × rate but never
//   slower than the cap's floor, the gain cycling through INFLIGHT_PROBE_GAINS (probe for more,
//   drain, cruise); a probe whose own packets come back INFLIGHT_PROBE_ROOM_GROWTH above the rate
//   it started from runs start-up again;
// - a standing queue (RTT above min RTT + INFLIGHT_STANDING_QUEUE_MS for round trips) or loss
//   above INFLIGHT_LOSS_THRESHOLD (random loss stays below it) drains; heavy loss also cuts the
//   rate, and so does a queue above the target that stays while cruising (the estimate is high).
// Pure: the caller passes the clock.

import {
  INFLIGHT_FLOOR_PACKETS, INFLIGHT_INITIAL_PACKETS, INFLIGHT_INITIAL_MAX_PACKETS, INFLIGHT_QUEUE_TARGET_MS, INFLIGHT_RATE_SAMPLE_MS,
  INFLIGHT_STALL_MS, INFLIGHT_FLOOR_FEEDBACK_INTERVALS, INFLIGHT_STARTUP_GAIN,
  INFLIGHT_PACING_STARTUP_GAIN, INFLIGHT_PACING_BURST_PACKETS, INFLIGHT_PACING_BURST_MS, INFLIGHT_ACK_AGGREGATION_MAX_MS,
  INFLIGHT_BW_WINDOW_ROUNDS, INFLIGHT_PROBE_GAINS, INFLIGHT_DRAIN_PHASE, INFLIGHT_PHASE_MIN_MS,
  INFLIGHT_STARTUP_GROWTH, INFLIGHT_STARTUP_FLAT_ROUNDS, INFLIGHT_STANDING_QUEUE_MS, INFLIGHT_STANDING_QUEUE_ROUNDS,
  INFLIGHT_LOSS_THRESHOLD, INFLIGHT_LOSS_MIN_PACKETS, INFLIGHT_LOSS_BETA, INFLIGHT_MIN_RTT_WINDOW_MS,
  INFLIGHT_PROBE_ROOM_GROWTH, INFLIGHT_STARTUP_QUEUE_ECHOES, INFLIGHT_UPLINK_HEADROOM,
} from './inflight-constants.js';
import { SCTP_PACKET_OVERHEAD_BYTES, DTLS_RECORD_OVERHEAD_BYTES, UPLINK_FRAME_OVERHEAD_BYTES } from './constants.js';

/**
 * Datagrams per ms that an uplink of `bytesPerSecond` carries, each `datagramBytes` plus its SCTP,
 * DTLS, UDP, IP and Ethernet headers; 0 when the uplink's rate is unknown (null, not > 0).
 * @param {number | null | undefined} bytesPerSecond @param {number} datagramBytes
 */
export function uplinkDatagramRate(bytesPerSecond, datagramBytes) {
  if (!(typeof bytesPerSecond === 'number' && bytesPerSecond > 0 && Number.isFinite(bytesPerSecond))) return 0;
  return bytesPerSecond / 1000 / (datagramBytes + SCTP_PACKET_OVERHEAD_BYTES + DTLS_RECORD_OVERHEAD_BYTES + UPLINK_FRAME_OVERHEAD_BYTES);
}

/**
 * The in-flight floor for a download whose client sends feedback every `feedbackEvery` packets.
 * @param {number} feedbackEvery packets
 */
export function inflightFloorPackets(feedbackEvery) {
  return Math.max(INFLIGHT_FLOOR_PACKETS, INFLIGHT_FLOOR_FEEDBACK_INTERVALS * feedbackEvery);
}

/** Send times kept (packets): far more than ever fly at once. */
const SEND_TIME_RING = 8192;

/** Echoes kept for rate samples (count): a round trip's at one per packet on a fast path; beyond it the span only grows. */
const ECHO_HISTORY = 512;

/** @typedef {{ echo: number, at: number, lost: number }} EchoMark  an echo: the seq, when (ms), the sender's loss count then */

/**
 * What one download learnt about the path, for the next download on the same channel.
 * @typedef {{ rate: number, minRttMs: number }} PathEstimate  rate in packets/ms
 */

/**
 * @param {{ queueTargetMs?: number, floorPackets?: number, initialPackets?: number, stallMs?: number, path?: PathEstimate | null, pacing?: boolean, uplinkRate?: number, rttHintMs?: number | null, echoLagPackets?: number, aggregationMaxMs?: number, now?: number }} [o]
 *   path: the previous download's estimate on this channel (a kept connection), or on an earlier
 *   connection of the same client (the proxy's path cache): the cap starts there instead of at
 *   initialPackets, so a download does not ramp up from scratch each time.
 *   pacing: also space the packets at the phase's gain × the bottleneck rate (once one is
 *   known), for a transport that would send whatever it is given at once.
 *   uplinkRate: the source's own uplink (datagrams per ms, uplinkDatagramRate; 0: unknown): the
 *   pacing lets out at most INFLIGHT_UPLINK_HEADROOM × it, from the first packet on. Faster only fills the source's own queue: start-up paces at 3× a
 *   rate that lags its growth by a round trip, and the queue shows only a round trip later, so a
 *   new connection overran a shallow uplink queue (testbed, 896 KiB/s uplinks with 30-packet
 *   queues, RTT 50 ms: ~50 of a 1.5 MiB one-off's ~500 packets per proxy dropped at start-up).
 *   rttHintMs: the round trip the transport measured while connecting (ms; null: unknown): with the
 *   uplink known, a path not measured yet starts with uplink × it in flight (INFLIGHT_INITIAL_MAX_PACKETS
 *   at most) instead of initialPackets.
 *   echoLagPackets: packets the client may have received before it echoes them (it answers a source
 *   every feedbackEvery of its packets): counted in flight here though off the path, so the cap
 *   allows them on top of what the path holds.
 *   aggregationMaxMs: the most bunched echoes may add to the cap (ms at the delivery rate; 0: none).
 *   now: the download's start (ms), when a carried path's min RTT counts as measured.
 */
export function createInflightLimit(o = {}) {
  const queueTargetMs = o.queueTargetMs ?? INFLIGHT_QUEUE_TARGET_MS;
  const floorPackets = o.floorPackets ?? INFLIGHT_FLOOR_PACKETS;
  const rttHintMs = typeof o.rttHintMs === 'number' && Number.isFinite(o.rttHintMs) && o.rttHintMs > 0 ? o.rttHintMs : 0;
  /** the source's own uplink (datagrams per ms; 0: unknown) */
  const uplinkKnown = typeof o.uplinkRate === 'number' && Number.isFinite(o.uplinkRate) && o.uplinkRate > 0 ? o.uplinkRate : 0;
  const initialPackets = Math.max(o.initialPackets ?? INFLIGHT_INITIAL_PACKETS, Math.min(INFLIGHT_INITIAL_MAX_PACKETS, Math.ceil(uplinkKnown * rttHintMs)));
  const stallMs = o.stallMs ?? INFLIGHT_STALL_MS;
  const echoLagPackets = o.echoLagPackets ?? 0;
  const aggregationMaxMs = o.aggregationMaxMs ?? INFLIGHT_ACK_AGGREGATION_MAX_MS;
  const sendTimes = new Float64Array(SEND_TIME_RING);
  let lastSeq = 0;
  let echo = 0;
  let echoAt = 0;
  let minRttMs = o.path && o.path.minRttMs > 0 ? o.path.minRttMs : Infinity;
  /** when minRttMs was last seen (ms): a carried one counts from the download's start */
  let minRttAt = o.now ?? 0;
  const carriedRate = o.path && o.path.rate > 0 && Number.isFinite(minRttMs) ? o.path.rate : 0;
  /** the bottleneck rate (packets per ms): the max of roundMax, the most delivered per round trip */
  let rate = carriedRate;
  const roundMax = new Float64Array(INFLIGHT_BW_WINDOW_ROUNDS);
  roundMax[0] = carriedRate;
  /** the download starts from a path measured before (o.path): its rate is known */
  const keptPath = carriedRate > 0;
  /**
   * Start-up, on a path not measured yet: until a round trip shows a queue (RTT > min RTT + queue
   * target) or the rate stops growing, the cap may grow to INFLIGHT_STARTUP_GAIN × rate × min RTT:
   * about ×2 per round trip instead of (min RTT + queue target) / RTT, which at a 50 ms RTT is only
   * ×1.3. A download that starts from a known path has none: it starts probing at that rate. A 2×
   * start-up cap on top of a known rate let new connections (testbed, RTT 50 ms, SCTP initial
   * window 40, 4×896 KiB/s) overfill the links' 50 ms queues: 48 duplicate packets per download,
   * 2554 KiB/s; without it 2.5, 2769 KiB/s.
   */
  let startup = !keptPath;
  let startupBestRate = 0;
  let startupFlatRounds = 0;
  /** echoes in a row, in start-up, whose RTT showed a queue */
  let startupLateEchoes = 0;
  /** the probing cycle: phase index into INFLIGHT_PROBE_GAINS and when it began */
  let phase = 0;
  let phaseAt = 0;
  /** the rate when the last probe (phase 0) began: what it must beat to show room */
  let probeBaseRate = rate;
  /**
   * The probe's own packets, whose delivery rate shows whether the path has room: the first seq
   * it sent (0: none being measured) and the last (0 while it runs); the first and the latest echo
   * within them (seq, when, the loss count then; start at < 0: none yet). A download on a kept
   * path starts in the probe: its first echo may come bunched (the client holds packets until it
   * has voted on the metas), so the measure starts at a later one.
   */
  let probeFirstSeq = keptPath ? 1 : 0;
  let probeLastSeq = 0;
  /** @type {EchoMark} */
  const probeFrom = { echo: 0, at: -1, lost: 0 };
  /** @type {EchoMark} */
  const probeTo = { echo: 0, at: -1, lost: 0 };
  /** round trips: one ends when a packet sent after it began is echoed */
  let round = 0;
  let roundEndSeq = 0;
  let roundEchoStart = 0;
  let roundMinRtt = Infinity;
  let standingRounds = 0;
  /** cruising round trips in a row with a queue above the target, and the most any delivered */
  let queuedRounds = 0;
  let queuedRoundsMax = 0;
  /** loss: the sender's count of packets it learnt were lost, and the tally being judged */
  let lostTotal = 0;
  let lossEchoed = 0;
  let lossLost = 0;
  let congestionEvents = 0;
  /** times a probe found room and start-up ran again */
  let restarts = 0;
  /** the echoes of the last round trip or more, for rate samples: when, how far, lost by then */
  const histAt = new Float64Array(ECHO_HISTORY);
  const histEcho = new Float64Array(ECHO_HISTORY);
  const histLost = new Float64Array(ECHO_HISTORY);
  let histHead = 0;
  let histLen = 0;
  /** when the last probe was let through while the echo was stuck */
  let probeAt = -Infinity;
  /** time allows() said no (ms): the hold the download's time breakdown shows; heldSince ≥ 0 while holding */
  let heldMs = 0;
  let heldSince = -1;
  const pacing = o.pacing === true;
  const uplinkRate = uplinkKnown > 0 ? uplinkKnown * INFLIGHT_UPLINK_HEADROOM : Infinity;
  /** pacing's token bucket: packets that may leave now, refilled at the pace rate */
  let tokens = INFLIGHT_PACING_BURST_PACKETS;
  let tokensAt = 0;
  /** the last allows() said no for the pace, not for the cap */
  let pacedOut = false;
  /**
   * Echo aggregation: a client whose feedback comes bunched (a browser answers in bursts after its
   * event loop was busy) echoes more in a burst than the delivery rate accounts for. Between
   * bursts the cap fills and the sender idles though the path is empty. As BBR's extra_acked: an
   * epoch starts with an echo when those since the last epoch are no ahead of the rate; the most
   * the echoes ran ahead of it (packets, the largest in the last INFLIGHT_BW_WINDOW_ROUNDS round
   * trips, as BBR's windowed filter) is allowed in flight on top of the path's share. One echo
   * each feedbackEvery packets runs that many ahead. Kept for the whole download, one late burst
   * let a source hold its queue 40 ms fuller from then on: with SCTP no longer backing off on
   * loss, a single 896 KiB/s path overflowed its 50 ms shaper queue (1-3% loss, testbed).
   */
  let aggAt = -1;
  let aggEcho = 0;
  let aggExtra = 0;
  const aggRoundMax = new Float64Array(INFLIGHT_BW_WINDOW_ROUNDS);
  const gain = () => INFLIGHT_PROBE_GAINS[phase];
  /** the drain phase follows the cycle's probe (not the end of start-up, a standing queue or heavy loss) */
  let drainAfterProbe = false;
  /**
   * The gain the pacing and the cap apply: the phase's, but the drain after a probe takes off only
   * what the probe added (0.75 mirrors 1.25). A probe held to the source's uplink, which the rate
   * had reached, added nothing, and a drain at 0.75 then idled the link a quarter of a round trip
   * per cycle (testbed, 896 KiB/s uplinks, RTT 50 ms: dips of ~12% every 400 ms).
   */
  const sendGain = () => {
    if (phase !== INFLIGHT_DRAIN_PHASE || !drainAfterProbe || !(rate > 0)) return gain();
    return 2 - Math.max(1, Math.min(INFLIGHT_PROBE_GAINS[0], uplinkRate / rate));
  };
  /**
   * The pace the in-flight floor stands for: floorPackets per (min RTT + queue target), what the cap
   * lets through at its floor with our queue at its target. Paced slower, a source whose estimate
   * fell far below its path (a small share of a client that several sources filled) sent too few
   * packets in a probe for two echoes, and never saw the room: on a 0.5 ms path, 0.2 → 0.35
   * packets/ms in a second, its link carrying 10.
   */
  const floorPace = () => (Number.isFinite(minRttMs) ? floorPackets / (minRttMs + queueTargetMs) : 0);
  /** packets per ms the pacing lets through now; Infinity: not paced (no pacing, or no rate known yet and no uplink) */
  const paceRate = () => {
    if (!pacing) return Infinity;
    return rate > 0 ? Math.min(uplinkRate, Math.max(floorPace(), rate * (startup ? INFLIGHT_PACING_STARTUP_GAIN : sendGain()))) : uplinkRate;
  };

  /** @param {number} p @param {number} now @param {boolean} [afterProbe] the cycle moves on from its probe */
  function enterPhase(p, now, afterProbe = false) {
    drainAfterProbe = afterProbe && p === INFLIGHT_DRAIN_PHASE;
    if (phase === 0 && p !== 0 && probeFirstSeq > 0 && probeLastSeq === 0) {
      if (lastSeq >= probeFirstSeq) probeLastSeq = lastSeq;
      else probeFirstSeq = 0; // it sent nothing
    }
    phase = p;
    phaseAt = now;
    if (p === 0) {
      probeBaseRate = rate;
      probeFirstSeq = lastSeq + 1;
      probeLastSeq = 0;
      probeFrom.at = -1;
    }
  }

  /**
   * Echo e at `now`: once the echoes have passed the probe's packets, the delivery rate between
   * the first and the last echo within them is one rate sample, and ≥ INFLIGHT_PROBE_ROOM_GROWTH
   * × the rate the probe started from means room. Samples over a round trip each straddle the
   * probe and its neighbours (the drain at 0.75× behind it), so probes rarely showed room in them:
   * testbed, 1×1792 + 3×896 KiB/s, RTT 50 ms, the 1792 KiB/s source stayed at ~0.7 of its link
   * for 3 downloads of 1.5 MiB.
   * @param {number} e @param {number} now @param {boolean} firstEcho
   */
  function measureProbe(e, now, firstEcho) {
    if (probeFirstSeq === 0 || e < probeFirstSeq || firstEcho) return;
    const inProbe = probeLastSeq === 0 || e <= probeLastSeq;
    if (inProbe) {
      const mark = probeFrom.at < 0 ? probeFrom : probeTo;
      mark.echo = e;
      mark.at = now;
      mark.lost = lostTotal;
    }
    if (probeLastSeq === 0 || e < probeLastSeq) return;
    probeFirstSeq = 0;
    if (probeFrom.at < 0 || probeTo.at < probeFrom.at || probeTo.echo <= probeFrom.echo) return;
    const r = deliveryRate(probeFrom, probeTo);
    if (r !== null && !startup && probeBaseRate > 0 && r >= probeBaseRate * INFLIGHT_PROBE_ROOM_GROWTH) startUpAgain();
  }

  /** The path had room the rate estimate did not show: grow ~×2 per round trip until a queue shows. */
  function startUpAgain() {
    startup = true;
    startupBestRate = rate;
    startupFlatRounds = 0;
    startupLateEchoes = 0;
    restarts++;
  }

  /** A round trip ended at `now`: judge its queue and loss, move the rate window on. @param {number} now */
  function endRound(now) {
    const endedRoundMax = roundMax[round % INFLIGHT_BW_WINDOW_ROUNDS];
    round++;
    // loss is learnt from echoes, so it is judged against the packets echoed meanwhile (packets
    // sent in the same round trip are another round's: a probe's sends against a drain's losses)
    const echoed = echo - roundEchoStart;
    roundEchoStart = echo;
    roundEndSeq = lastSeq;
    if (startup) {
      // the path is full when the rate stopped growing (BBR's full-pipe check)
      if (rate >= startupBestRate * INFLIGHT_STARTUP_GROWTH) {
        startupBestRate = rate;
        startupFlatRounds = 0;
      } else if (++startupFlatRounds >= INFLIGHT_STARTUP_FLAT_ROUNDS) endStartup(now);
    }
    // a standing queue: the lowest RTT of the round stayed high
    if (Number.isFinite(roundMinRtt) && roundMinRtt > minRttMs + INFLIGHT_STANDING_QUEUE_MS) standingRounds++;
    else standingRounds = 0;
    if (standingRounds >= INFLIGHT_STANDING_QUEUE_ROUNDS && !startup && gain() >= 1) {
      standingRounds = 0;
      enterPhase(INFLIGHT_DRAIN_PHASE, now);
    }
    // Cruising at the rate estimate yet a queue stays: the estimate is above what the path
    // delivers (a sample inflated by echoes that came bunched, or a share another flow took).
    // The rate falls to what these round trips delivered, the most of them.
    if (!startup && gain() === 1 && Number.isFinite(roundMinRtt) && roundMinRtt > minRttMs + queueTargetMs) {
      queuedRoundsMax = Math.max(queuedRoundsMax, endedRoundMax);
      if (++queuedRounds >= INFLIGHT_STANDING_QUEUE_ROUNDS && queuedRoundsMax > 0) {
        for (let i = 0; i < roundMax.length; i++) roundMax[i] = Math.min(roundMax[i], queuedRoundsMax);
        queuedRounds = 0;
        queuedRoundsMax = 0;
      }
    } else {
      queuedRounds = 0;
      queuedRoundsMax = 0;
    }
    if (Number.isFinite(roundMinRtt) && now - minRttAt > INFLIGHT_MIN_RTT_WINDOW_MS) {
      minRttMs = roundMinRtt; // not seen again within the window: the path's base RTT changed
      minRttAt = now;
    }
    roundMinRtt = Infinity;
    // loss: judged over at least INFLIGHT_LOSS_MIN_PACKETS echoed
    lossEchoed += echoed;
    if (lossEchoed >= INFLIGHT_LOSS_MIN_PACKETS) {
      if (lossLost > INFLIGHT_LOSS_THRESHOLD * lossEchoed) onCongestiveLoss(now);
      lossEchoed = 0;
      lossLost = 0;
    }
    roundMax[round % INFLIGHT_BW_WINDOW_ROUNDS] = 0;
    rate = Math.max(...roundMax);
    aggRoundMax[round % INFLIGHT_BW_WINDOW_ROUNDS] = 0;
    aggExtra = Math.max(...aggRoundMax);
  }

  /** @param {number} now */
  function endStartup(now) {
    startup = false;
    probeBaseRate = rate;
    enterPhase(INFLIGHT_DRAIN_PHASE, now); // drain the queue start-up built
  }

  /** Loss above the threshold: more than random loss, the bottleneck's queue overflows. @param {number} now */
  function onCongestiveLoss(now) {
    congestionEvents++;
    const cut = rate * INFLIGHT_LOSS_BETA;
    for (let i = 0; i < roundMax.length; i++) roundMax[i] = Math.min(roundMax[i], cut);
    rate = cut;
    if (startup) startup = false;
    enterPhase(INFLIGHT_DRAIN_PHASE, now);
  }

  /** @param {number} r a delivery-rate sample (packets per ms) */
  function addRateSample(r) {
    const i = round % INFLIGHT_BW_WINDOW_ROUNDS;
    if (r > roundMax[i]) roundMax[i] = r;
    if (r > rate) rate = r;
  }

  /**
   * Packets per ms delivered between two echoes (each: the seq echoed, when, the sender's loss
   * count then), or null over no time.
   * @param {EchoMark} a @param {EchoMark} b
   * @returns {number | null}
   */
  function deliveryRate(a, b) {
    const from = a.echo;
    const e = b.echo;
    // the same packets over the longer of their echo span and their send span (as BBR's
    // delivery rate): echoes that come bunched (a late feedback, a download's last one) show
    // more than was sent, and at 896 KiB/s (~0.73 packets/ms) the testbed's downloads ended at
    // up to 1.06 by the echoes alone
    const sendSpan = lastSeq - from < SEND_TIME_RING ? sendTimes[e % SEND_TIME_RING] - sendTimes[from % SEND_TIME_RING] : 0;
    const dt = Math.max(b.at - a.at, sendSpan);
    if (!(dt > 0)) return null;
    // Lost packets crossed the bottleneck when the loss is random (dropped past it, as on a
    // radio link): they count. Above the congestion threshold the queue dropped them: they
    // do not, or a source overrunning a queue would read its own send rate as the link's.
    const progress = e - from;
    const lostIn = b.lost - a.lost;
    const delivered = lostIn > INFLIGHT_LOSS_THRESHOLD * progress ? progress - lostIn : progress;
    return Math.max(0, delivered) / dt;
  }

  /**
   * A delivery-rate sample over the echoes of the last round trip or more: over less, a few ms of
   * jitter in when the echoes come make up a large part of it, and the max filter keeps the high
   * ones (testbed, 896 KiB/s links, 20 ms start-up samples: estimates of 1.15-1.2× the link,
   * carried on). In start-up one at each echo (a sliding window, as BBR's per-ack samples: the
   * rate follows a window that doubles each round trip); after it one per round trip, from where
   * the last ended (the max over overlapping samples kept their jitter: 4 sources sharing a
   * 2 MiB/s cap held a ~45 ms queue instead of ~25). Rate samples start at the first echo: before
   * it lies the path's round trip, not delivery.
   * @param {number} e @param {number} now
   */
  function sampleRate(e, now) {
    const span = Math.max(INFLIGHT_RATE_SAMPLE_MS, Number.isFinite(minRttMs) ? minRttMs : 0);
    // the oldest echo kept is the newest at least `span` old: drop those before it
    while (histLen >= 2 && now - histAt[(histHead + 1) % ECHO_HISTORY] >= span) {
      histHead = (histHead + 1) % ECHO_HISTORY;
      histLen--;
    }
    if (histLen > 0 && now - histAt[histHead] >= span) {
      const r = deliveryRate({ echo: histEcho[histHead], at: histAt[histHead], lost: histLost[histHead] }, { echo: e, at: now, lost: lostTotal });
      if (r !== null) addRateSample(r);
      if (!startup) histLen = 0; // the next sample starts at this echo
    }
    if (histLen === ECHO_HISTORY) { // more echoes in a round trip than kept: forget the oldest
      histHead = (histHead + 1) % ECHO_HISTORY;
      histLen--;
    }
    const at = (histHead + histLen) % ECHO_HISTORY;
    histAt[at] = now;
    histEcho[at] = e;
    histLost[at] = lostTotal;
    histLen++;
  }

  return {
    /** @param {number} seq the packet's sequence number (1, 2, …) @param {number} now ms */
    onSent(seq, now) {
      if (paceRate() < Infinity) tokens -= 1;
      sendTimes[seq % SEND_TIME_RING] = now;
      if (lastSeq === 0) {
        echoAt = now; // the stall clock starts with the first packet
        phaseAt = now; // and so does the first phase: it must span a round trip of sending
      }
      lastSeq = seq;
    },
    /** @param {number} e highest seq of ours the client has seen @param {number} now ms */
    onEcho(e, now) {
      if (!Number.isInteger(e) || e <= echo || e > lastSeq) return; // stale, or not a seq we sent
      if (lastSeq - e < SEND_TIME_RING) {
        const rtt = Math.max(0, now - sendTimes[e % SEND_TIME_RING]);
        if (rtt <= minRttMs) {
          minRttMs = rtt;
          minRttAt = now;
        }
        roundMinRtt = Math.min(roundMinRtt, rtt);
        // a queue shows in start-up: INFLIGHT_STARTUP_QUEUE_ECHOES echoes in a row above the target
        if (startup && rtt > minRttMs + queueTargetMs) {
          if (++startupLateEchoes >= INFLIGHT_STARTUP_QUEUE_ECHOES) endStartup(now);
        } else startupLateEchoes = 0;
      }
      // in start-up the rate lags echoes that double each round trip: that is growth, not bunching
      if (startup || rate === 0) aggAt = -1;
      else {
        // an epoch also ends after a round trip: echoes that keep pace with the rate after a
        // burst would otherwise carry the burst's lead on in every round trip's maximum
        if (aggAt < 0 || e - aggEcho <= rate * (now - aggAt) || now - aggAt > Math.max(minRttMs, INFLIGHT_PHASE_MIN_MS)) {
          aggAt = now; // a new epoch, from this echo's packets on
          aggEcho = echo;
        }
        const i = round % INFLIGHT_BW_WINDOW_ROUNDS;
        aggRoundMax[i] = Math.max(aggRoundMax[i], e - aggEcho - rate * (now - aggAt));
        aggExtra = Math.max(aggExtra, aggRoundMax[i]);
      }
      const firstEcho = echo === 0;
      echo = e;
      echoAt = now;
      measureProbe(e, now, firstEcho);
      if (e >= roundEndSeq) endRound(now);
      if (!startup && now - phaseAt >= Math.max(minRttMs, INFLIGHT_PHASE_MIN_MS)) {
        enterPhase((phase + 1) % INFLIGHT_PROBE_GAINS.length, now, phase === 0);
      }
      sampleRate(e, now);
    },
    /**
     * The sender's running count of packets it learnt were lost (the protocol's own detection from
     * the feedback). Loss above INFLIGHT_LOSS_THRESHOLD of what was sent is taken as congestion.
     * @param {number} total
     */
    onLost(total) {
      if (!Number.isInteger(total) || total <= lostTotal) return;
      lossLost += total - lostTotal;
      lostTotal = total;
    },
    /** packets allowed in flight now */
    cap() {
      if (rate === 0) return initialPackets;
      const rtt = Number.isFinite(minRttMs) ? minRttMs : 0;
      const steady = rate * ((startup ? 1 : sendGain()) * rtt + queueTargetMs) + this.echoAllowance;
      return Math.max(floorPackets, Math.ceil(startup ? Math.max(steady, INFLIGHT_STARTUP_GAIN * rate * rtt) : steady));
    },
    /** May the next packet go now? (true is taken as "one will be sent") @param {number} now ms */
    allows(now) {
      let ok = lastSeq - echo < this.cap();
      pacedOut = false;
      if (ok && paceRate() < Infinity) {
        const bucketRate = Math.min(rate > 0 ? rate : Infinity, uplinkRate);
        tokens = Math.min(Math.max(INFLIGHT_PACING_BURST_PACKETS, bucketRate * INFLIGHT_PACING_BURST_MS), tokens + (now - tokensAt) * paceRate());
        tokensAt = now;
        pacedOut = tokens < 1;
        ok = !pacedOut;
      }
      // no echo for a while (feedback lost, all our packets lost, or the client not listening yet):
      // one probe per stallMs, whose arrival brings feedback; lifting the cap would burst a window
      if (!ok && now - Math.max(echoAt, probeAt) > stallMs) {
        probeAt = now;
        ok = true;
      }
      // a hold is the cap's: waiting for the pacer's next slot is the link's rate, not idle time
      const holding = !ok && !pacedOut;
      if (holding && heldSince < 0) heldSince = now;
      if (!holding && heldSince >= 0) {
        heldMs += now - heldSince;
        heldSince = -1;
      }
      return ok;
    },
    /** ms the cap has held the sender so far (an ongoing hold counted up to now) @param {number} now */
    heldMs(now) {
      return heldMs + (heldSince >= 0 ? now - heldSince : 0);
    },
    /**
     * While allows() is false: when the pace lets the next packet go, or else when a probe may
     * pass if no echo comes first (ms).
     * @returns {number}
     */
    wakeAt() {
      if (pacedOut) return tokensAt + (1 - tokens) / paceRate();
      return Math.max(echoAt, probeAt) + stallMs;
    },
    get inflight() {
      return lastSeq - echo;
    },
    /** packets the cap allows on top of the path's share for echoes that come late or bunched */
    get echoAllowance() {
      return Math.max(echoLagPackets, Math.min(aggExtra, rate * aggregationMaxMs));
    },
    /** the bottleneck rate estimate (packets per ms) */
    get rate() {
      return rate;
    },
    get minRttMs() {
      return minRttMs;
    },
    get startup() {
      return startup;
    },
    /** the probing cycle's gain now (start-up: its pacing gain) */
    get gain() {
      return startup ? INFLIGHT_PACING_STARTUP_GAIN : sendGain();
    },
    /** round trips so far */
    get rounds() {
      return round;
    },
    /** times a probe found the path far from full and start-up ran again */
    get startupRestarts() {
      return restarts;
    },
    /** times loss above INFLIGHT_LOSS_THRESHOLD cut the rate */
    get congestionEvents() {
      return congestionEvents;
    },
    /**
     * For the next download on this channel: the bottleneck rate and min RTT (null: nothing
     * measured). The windowed max, not the latest samples: a download's tail trickles (the window
     * waits for the last generations), and a next download started from its rate was paced at
     * half the link and probed its way back only 1.25× per cycle.
     * @returns {PathEstimate | null}
     */
    pathEstimate() {
      return rate > 0 && Number.isFinite(minRttMs) ? { rate, minRttMs } : null;
    },
  };
}
