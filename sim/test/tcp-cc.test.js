// The TCP model under random loss (src/tcp-cc.js, src/tcp-stream.js): cubic's multiplicative
// decrease and growth, bbr's indifference to random loss, and one flow against the testbed's
// calibration (testbed/src/links.js: one 896 KiB/s link, RTT 50 ms, 1% loss: 380 KiB/s with
// cubic, 847 with bbr).
import assert from 'node:assert/strict';
import { createTcpCc, afterIdle, CUBIC_BETA, CUBIC_C, TCP_INITIAL_CWND_SEGMENTS } from '../src/tcp-cc.js';
import { simulateOnce } from '../src/simulate.js';
import { EventQueue } from '../src/event-queue.js';
import { Network } from '../src/network.js';
import { createTcpConn, startTcpStream, TCP_MSS_BYTES } from '../src/tcp-stream.js';

const RTT_MS = 50;

/**
 * Acknowledge a window's worth every round trip for `seconds`, from `fromMs`; returns cwnd at
 * each round trip's end.
 * @param {ReturnType<typeof createTcpCc>} cc @param {number} fromMs @param {number} seconds
 */
function ackRounds(cc, fromMs, seconds) {
  /** @type {Array<[number, number]>} ms since fromMs, cwnd */
  const out = [];
  for (let t = 0; t <= seconds * 1000; t += RTT_MS) {
    const n = Math.ceil(cc.cwnd);
    for (let k = 0; k < n; k++) cc.onAck(1, fromMs + t + (k * RTT_MS) / n);
    out.push([t, cc.cwnd]);
  }
  return out;
}

/** A cubic window grown to `w` in slow start, then cut by a loss. @param {number} w */
function cutAt(w) {
  const cc = createTcpCc('cubic', 37);
  cc.onAck(w - TCP_INITIAL_CWND_SEGMENTS, 0);
  assert.equal(cc.cwnd, w);
  cc.onLoss();
  return cc;
}

describe('sim TCP: cubic and bbr under loss', () => {
  it('cubic: a loss event cuts the window by β = 0.7 (ssthresh too); a timeout to 1 segment', () => {
    const cc = cutAt(40);
    assert.equal(CUBIC_BETA, 0.7);
    assert.ok(Math.abs(cc.cwnd - 28) < 1e-9, `cwnd ${cc.cwnd}`);
    assert.ok(Math.abs(cc.ssthresh - 28) < 1e-9);
    cc.onTimeout();
    assert.equal(cc.cwnd, 1);
    assert.ok(Math.abs(cc.ssthresh - 28 * 0.7) < 1e-9);
  });

  it('cubic grows as W(t) = C(t − K)³ + Wmax where that is above Reno: back to Wmax at t = K', () => {
    const wMax = 1000;
    const cc = cutAt(wMax);
    const k = Math.cbrt((wMax * (1 - CUBIC_BETA)) / CUBIC_C); // 9.09 s
    const rounds = ackRounds(cc, 1000, k + 1);
    const at = (/** @type {number} */ s) => /** @type {[number, number]} */ (rounds.find(([t]) => t >= s * 1000))[1];
    const cubic = (/** @type {number} */ s) => CUBIC_C * (s - k) ** 3 + wMax;
    for (const s of [k / 2, 0.8 * k, k]) {
      assert.ok(Math.abs(at(s) - cubic(s)) / cubic(s) < 0.02, `t = ${s.toFixed(2)} s: cwnd ${at(s).toFixed(1)}, cubic ${cubic(s).toFixed(1)}`);
    }
  });

  it('cubic on a small window follows the TCP-friendly (Reno) estimate: + 3(1 − β)/(1 + β) per round trip', () => {
    const cc = cutAt(20); // K = 2.47 s: the cubic curve gains under 2 segments in the first second
    const rounds = ackRounds(cc, 1000, 1);
    const alpha = (3 * (1 - CUBIC_BETA)) / (1 + CUBIC_BETA);
    const reno = 14 + (1000 / RTT_MS) * alpha;
    const cwnd = rounds[rounds.length - 1][1];
    assert.ok(Math.abs(cwnd - reno) / reno < 0.06, `after 1 s cwnd ${cwnd.toFixed(1)}, Reno-friendly ${reno.toFixed(1)}`);
  });

  it('bbr ignores random loss and timeouts: its window stays at its cap', () => {
    const cc = createTcpCc('bbr', 37);
    cc.onAck(1000, 0);
    const w = cc.cwnd;
    assert.ok(w > 37 && w < 2 * 37, `bbr window ${w}`);
    cc.onLoss();
    cc.onTimeout();
    assert.equal(cc.cwnd, w);
  });

  it('a kept cubic connection after the quiet: halved for each RTO that passed, not below the initial window; ssthresh keeps ¾', () => {
    const s = { cwnd: 40, ssthresh: 28, wMax: 40 };
    assert.deepEqual(afterIdle('cubic', s, 300, 250), { cwnd: 20, ssthresh: 30, wMax: 40 });
    assert.equal(afterIdle('cubic', s, 200, 250).cwnd, 40);
    assert.equal(afterIdle('cubic', s, 5000, 250).cwnd, TCP_INITIAL_CWND_SEGMENTS);
  });

  it('a kept bbr connection keeps its window however long the quiet (Linux skips the restart for bbr)', () => {
    const s = { cwnd: 40, ssthresh: 40, wMax: 0 };
    assert.deepEqual(afterIdle('bbr', s, 300, 250), s);
    assert.deepEqual(afterIdle('bbr', s, 5000, 250), s);
  });

  it('near a response\'s end, RACK-TLP: the last segment lost is resent by the probe 2 round trips on; the one before it once the last is acknowledged and a quarter round trip passed', () => {
    /** How much later than without loss the response's first segment arrives, its first copy lost. @param {number} segments */
    const extraMs = (segments) => {
      const arrival = (/** @type {boolean} */ lose) => {
        const q = new EventQueue();
        let draws = 0;
        const prng = { next: () => (lose && ++draws === 1 ? 0 : 0.999) }; // the first draw: the first segment's
        const net = new Network(q, { sources: [{ rateBps: 896 * 1024, delayMs: 25, loss: 0.01, startDelayMs: 0 }], downCapBps: Infinity, prng });
        let at = -1;
        startTcpStream(net, 0, segments * TCP_MSS_BYTES, 0, (offset) => {
          if (offset === 0) at = q.now;
        }, 0, createTcpConn(net, 0, 'bbr'));
        q.run(() => false, 10_000);
        return at;
      };
      return arrival(true) - arrival(false);
    };
    const rtt = 2 * 25 + (TCP_MSS_BYTES * 1000) / (896 * 1024);
    const last = extraMs(1);
    assert.ok(Math.abs(last - 2 * rtt) < 5, `the last segment repaired ${last.toFixed(1)} ms later: not the probe's 2 round trips`);
    const beforeLast = extraMs(2);
    assert.ok(Math.abs(beforeLast - 1.25 * rtt) < 5, `the one before repaired ${beforeLast.toFixed(1)} ms later: not RACK's 1¼ round trips`);
  });

  it('a segment lost mid-stream is repaired in about a round trip (SACK, fast retransmit), not after a timeout', () => {
    /** When offset 0 (the first segment) reaches the client, with its first copy lost or not. @param {boolean} lose */
    const firstArrival = (lose) => {
      const q = new EventQueue();
      let draws = 0;
      const prng = { next: () => (lose && ++draws === 1 ? 0 : 0.999) }; // the first draw: the first segment's
      const net = new Network(q, { sources: [{ rateBps: 896 * 1024, delayMs: 25, loss: 0.01, startDelayMs: 0 }], downCapBps: Infinity, prng });
      const conn = createTcpConn(net, 0, 'cubic');
      let at = -1;
      startTcpStream(net, 0, 40 * TCP_MSS_BYTES, 0, (offset) => {
        if (offset === 0) at = q.now;
      }, 0, conn);
      q.run(() => false, 10_000);
      return { at, cwnd: conn.cc.cwnd };
    };
    const clean = firstArrival(false);
    const lost = firstArrival(true);
    const extra = lost.at - clean.at;
    assert.ok(extra > RTT_MS && extra < 2 * RTT_MS, `repaired ${extra.toFixed(1)} ms later: not about one round trip`);
    assert.ok(lost.cwnd < clean.cwnd, 'and the loss cut the window');
  });

  it('one flow on the testbed\'s link at 1% loss: cubic near the testbed\'s 380 KiB/s, bbr near its 847', async function () {
    this.timeout(60_000);
    const rate = async (/** @type {'cubic' | 'bbr'} */ tcpCc) => {
      const r = await simulateOnce({
        mode: 'parallel-http', rates: [896 * 1024], delayMs: 25, loss: 0.01, startDelayMs: 0, downCapBps: Infinity,
        size: 8 * 1024 * 1024, params: {}, seeds: 1, overheadBytes: 0, queueMs: 50, tcpCc,
      }, 1);
      assert.ok(r.ok && r.verified);
      return r.netBytes / r.durationMs * 1000 / 1024;
    };
    const cubic = await rate('cubic');
    const bbr = await rate('bbr');
    assert.ok(cubic > 300 && cubic < 460, `cubic ${cubic.toFixed(0)} KiB/s`);
    assert.ok(bbr > 760, `bbr ${bbr.toFixed(0)} KiB/s`);
  });
});
