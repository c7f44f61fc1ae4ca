// Discrete-event core: a binary min-heap of (time, insertion order). Ties run in insertion
// order, so a run never depends on heap internals and stays deterministic.

export class EventQueue {
  constructor() {
    /** @type {number[]} */ this.times = [];
    /** @type {number[]} */ this.seqs = [];
    /** @type {Array<() => void>} */ this.fns = [];
    this.seq = 0;
    /** Simulated clock, ms. */
    this.now = 0;
  }

  get size() {
    return this.times.length;
  }

  /**
   * Run fn at time t (ms, never before now).
   * @param {number} t
   * @param {() => void} fn
   */
  at(t, fn) {
    const k = this.times.length;
    const time = t < this.now ? this.now : t;
    const seq = this.seq++;
    this.times.push(time);
    this.seqs.push(seq);
    this.fns.push(fn);
    this.siftUp(k, time, seq, fn);
  }

  /**
   * Put the entry (time, seq, fn) at the hole k or above it, moving later parents down.
   * @param {number} k @param {number} time @param {number} seq @param {() => void} fn
   */
  siftUp(k, time, seq, fn) {
    const { times, seqs, fns } = this;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (times[p] < time || (times[p] === time && seqs[p] < seq)) break;
      times[k] = times[p];
      seqs[k] = seqs[p];
      fns[k] = fns[p];
      k = p;
    }
    times[k] = time;
    seqs[k] = seq;
    fns[k] = fn;
  }

  /** Remove and run the earliest event. Returns false when the queue is empty. */
  step() {
    const { times, seqs, fns } = this;
    const n = times.length;
    if (n === 0) return false;
    const t0 = times[0];
    const fn0 = fns[0];
    const lastT = /** @type {number} */ (times.pop());
    const lastS = /** @type {number} */ (seqs.pop());
    const lastF = /** @type {() => void} */ (fns.pop());
    if (n > 1) {
      // bottom-up: walk the hole down to a leaf along the smaller children (one comparison a
      // level), then sift the last entry up from there; it usually belonged near the bottom
      const m = n - 1;
      let k = 0;
      for (;;) {
        let c = 2 * k + 1;
        if (c >= m) break;
        if (c + 1 < m && (times[c + 1] < times[c] || (times[c + 1] === times[c] && seqs[c + 1] < seqs[c]))) c++;
        times[k] = times[c];
        seqs[k] = seqs[c];
        fns[k] = fns[c];
        k = c;
      }
      this.siftUp(k, lastT, lastS, lastF);
    }
    this.now = t0;
    fn0();
    return true;
  }

  /**
   * Run events until `done()` is true, the queue is empty, or the clock passes `untilMs`.
   * @param {() => boolean} done
   * @param {number} untilMs
   */
  run(done, untilMs) {
    while (!done() && this.times.length > 0 && this.times[0] <= untilMs) this.step();
  }
}
