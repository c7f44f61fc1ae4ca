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
    /**
     * the echo at each window base seen, in a ring of span + 2 (enough to look `span` back: bases
     * grow by ≥ 1 per mark, so the oldest of a full ring is below any reference still needed)
     */
    this.ringSize = span + 2;
    this.markBase = new Float64Array(this.ringSize);
    this.markEcho = new Float64Array(this.ringSize * sourceCount);
    /** ring index of the oldest mark, and how many marks there are */
    this.markHead = 0;
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
    const size = this.ringSize;
    let ref = -1; // ring index of the newest mark at or below base − span
    for (let m = this.markCount - 1; m >= 0; m--) {
      const at = (this.markHead + m) % size;
      if (this.markBase[at] <= base - this.span) { ref = at; break; }
    }
    let t = 0;
    for (let j = 0; j < n; j++) t += (this.weights[j] = Math.max(0, echo[j] - (ref >= 0 ? this.markEcho[ref * n + j] : 0)) + 1);
    this.total = t;
    if (base <= this.lastBase) return;
    this.lastBase = base;
    if (this.markCount === size) { // the oldest mark is older than any reference still needed
      this.markHead = (this.markHead + 1) % size;
      this.markCount--;
    }
    const at = (this.markHead + this.markCount) % size;
    this.markBase[at] = base;
    for (let j = 0; j < n; j++) this.markEcho[at * n + j] = echo[j];
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
