// receivedLog: per-packet records on the client (arrival time, source, useful or duplicate,
// DoF after it) and the feedback send times — what the dashboard draws as the paper's
// Figures 8 and 9. Kept in growable typed arrays: one record per packet, no object each.

/**
 * Record times are rounded to this (ms): 10 µs, below any timer a browser gives a page, while a
 * raw double prints ~17 digits (an 8 MiB coded download's record was ~210 KB of JSON, which a
 * one-off `mutp get` waits to upload before it exits).
 */
export const RECORD_TIME_STEP_MS = 0.01;
const STEPS_PER_MS = Math.round(1 / RECORD_TIME_STEP_MS);
/** @param {number} ms */
const recordTime = (ms) => Math.round(ms * STEPS_PER_MS) / STEPS_PER_MS;

export class ReceivedLog {
  constructor(capacity = 1024) {
    this.t = new Float64Array(capacity);
    this.source = new Uint8Array(capacity);
    this.useful = new Uint8Array(capacity);
    this.dof = new Uint32Array(capacity);
    this.length = 0;
    /** @type {number[]} times feedback was sent (ms, the caller's clock) */
    this.feedback = [];
  }

  /** @param {number} t @param {number} source @param {boolean} useful @param {number} dof */
  add(t, source, useful, dof) {
    if (this.length === this.t.length) this.grow();
    const k = this.length++;
    this.t[k] = t;
    this.source[k] = source;
    this.useful[k] = useful ? 1 : 0;
    this.dof[k] = dof;
  }

  grow() {
    const n = this.t.length * 2;
    /** @template {Float64Array|Uint8Array|Uint32Array} T @param {T} a @param {T} b @returns {T} */
    const copy = (a, b) => { b.set(a); return b; };
    this.t = copy(this.t, new Float64Array(n));
    this.source = copy(this.source, new Uint8Array(n));
    this.useful = copy(this.useful, new Uint8Array(n));
    this.dof = copy(this.dof, new Uint32Array(n));
  }

  /** @returns {{t: number, source: number, useful: boolean, dof: number}[]} */
  packets() {
    const out = new Array(this.length);
    for (let k = 0; k < this.length; k++) out[k] = { t: this.t[k], source: this.source[k], useful: this.useful[k] === 1, dof: this.dof[k] };
    return out;
  }

  /**
   * The log record's `packetLog` and `feedbackLog` (docs/log-record.md), times relative to
   * `originMs` (the request time), to RECORD_TIME_STEP_MS.
   * @param {number} [originMs]
   */
  toRecord(originMs = 0) {
    const packetLog = new Array(this.length);
    for (let k = 0; k < this.length; k++) packetLog[k] = [recordTime(this.t[k] - originMs), this.source[k], this.useful[k], this.dof[k]];
    return { packetLog, feedbackLog: this.feedback.map((t) => recordTime(t - originMs)) };
  }
}
