// In-transit packets of one sender, in send order. Sequence numbers rise with each send, so
// the entries a feedback echo (highest seq received from this source) settles are always at
// the front: popping them is O(1) amortized per packet, no window scan.

export class TransitQueue {
  constructor(capacity = 256) {
    this.seq = new Float64Array(capacity);
    this.item = new Int32Array(capacity);
    this.time = new Float64Array(capacity);
    this.head = 0;
    this.length = 0;
  }

  /** @param {number} seq @param {number} item @param {number} time */
  push(seq, item, time) {
    if (this.length === this.seq.length) this.grow();
    const k = (this.head + this.length) % this.seq.length;
    this.seq[k] = seq;
    this.item[k] = item;
    this.time[k] = time;
    this.length++;
  }

  grow() {
    const cap = this.seq.length;
    const seq = new Float64Array(cap * 2);
    const item = new Int32Array(cap * 2);
    const time = new Float64Array(cap * 2);
    for (let i = 0; i < this.length; i++) {
      const k = (this.head + i) % cap;
      seq[i] = this.seq[k];
      item[i] = this.item[k];
      time[i] = this.time[k];
    }
    this.seq = seq;
    this.item = item;
    this.time = time;
    this.head = 0;
  }

  frontSeq() { return this.seq[this.head]; }
  frontItem() { return this.item[this.head]; }
  frontTime() { return this.time[this.head]; }

  shift() {
    this.head = (this.head + 1) % this.seq.length;
    this.length--;
  }
}
