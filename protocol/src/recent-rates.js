// The 'share' schedulers' view of how fast each source sends now, from the feedback echo
// (each source's highest seq the client received): the echo now minus the echo when the
// window's base was `span` lower. Totals since the start lag for the whole download behind a
// source that began on a new connection (SCTP slow start) beside one on a kept connection.

/** 'share': a helper leaves to each owner the packets it sends in this many of the helper's RTTs (tuned in the simulator). */
export const HELP_HORIZON_RTTS = 1.5;

export class RecentRates {
  /**
   * @param {number} sourceCount
   * @param {number} span how far back (in the window base's units) the rates look
   */
  constructor(sourceCount, span) {
    this.n = sourceCount;
    this.span = span;
    /** per source: packets sent over the span (echo delta) + 1, so none is 0 */
    this.weights = new Float64Array(sourceCount).fill(1);
    this.total = sourceCount;
    /** the echo at each window base seen, oldest first (enough to look `span` back: bases only grow) */
    this.markBase = new Float64Array(span + 2);
    this.markEcho = new Float64Array((span + 2) * sourceCount);
    this.markCount = 0;
    /** the start, base 0, is the implicit mark of echo 0: only moves are marked, and every source hears the same ones */
    this.lastBase = 0;
  }

  /**
   * Weights from this feedback's echo, less the echo of the latest mark at or below base − span
   * (none yet: since the start); then mark this echo if the base moved.
   * @param {ArrayLike<number>} echo @param {number} base the window's base after this feedback
   */
  update(echo, base) {
    const n = this.n;
    let ref = -1;
    for (let m = this.markCount - 1; m >= 0; m--) if (this.markBase[m] <= base - this.span) { ref = m; break; }
    let t = 0;
    for (let j = 0; j < n; j++) t += (this.weights[j] = Math.max(0, echo[j] - (ref >= 0 ? this.markEcho[ref * n + j] : 0)) + 1);
    this.total = t;
    if (base <= this.lastBase) return;
    this.lastBase = base;
    // marks older than the reference are never needed again; with span + 2 marks the oldest is
    // always older than the reference (bases grow by ≥ 1 per mark)
    if (ref > 0 || this.markCount === this.markBase.length) {
      const drop = Math.max(ref, 1);
      this.markBase.copyWithin(0, drop, this.markCount);
      this.markEcho.copyWithin(0, drop * n, this.markCount * n);
      this.markCount -= drop;
    }
    this.markBase[this.markCount] = base;
    for (let j = 0; j < n; j++) this.markEcho[this.markCount * n + j] = echo[j];
    this.markCount++;
  }

  /**
   * Packets source j sends while source `me` sends HELP_HORIZON_RTTS of its round trips (about
   * `me`'s packets in transit each), if their rates keep the weights' ratio.
   * @param {number} j @param {number} me @param {number} transitPackets me's packets in transit
   */
  horizonPackets(j, me, transitPackets) {
    return (HELP_HORIZON_RTTS * transitPackets * this.weights[j]) / this.weights[me];
  }
}
