// Timing in short bursts, shared by the codec benchmarks. On a shared machine one long run
// measures the neighbours as much as the codec, so variants run in interleaved bursts: all of
// them see the same load, and the best burst approximates a quiet machine.

/** Length of one burst in ms: with load 5-8 on 2 cores a 2 ms burst often runs unpreempted. */
export const BURST_MS = 2;
const MB = 1e6;

/** Rates of one measured operation, accumulated over its bursts. */
export class Cell {
  constructor() {
    this.bytes = 0;
    this.wallMs = 0;
    this.cpuUs = 0;
    /** @type {number[]} MB/s of each burst */
    this.bursts = [];
  }

  /**
   * Runs `op` (which returns the bytes it produced) for one burst.
   * @param {() => number | Promise<number>} op
   */
  async burst(op) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let now = t0;
    let bytes = 0;
    do {
      bytes += await op();
      now = performance.now();
    } while (now - t0 < BURST_MS);
    const cpu = process.cpuUsage(c0);
    this.bytes += bytes;
    this.wallMs += now - t0;
    this.cpuUs += cpu.user + cpu.system;
    this.bursts.push(bytes / MB / ((now - t0) / 1000));
  }

  /** @param {number} q quantile 0..1 of the burst rates */
  quantile(q) {
    const sorted = [...this.bursts].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  }

  /** MB/s: wall and CPU time over all bursts, median and best burst. */
  summary() {
    return {
      wall: this.bytes / MB / (this.wallMs / 1000),
      cpu: this.bytes / MB / (this.cpuUs / 1e6),
      median: this.quantile(0.5),
      best: this.quantile(1),
    };
  }
}

/**
 * Runs every op in interleaved bursts (order reversed every other round) for `ms` in all.
 * @param {Array<{op: () => number | Promise<number>, cell: Cell}>} runs
 * @param {number} ms
 */
export async function interleave(runs, ms) {
  const end = performance.now() + ms;
  for (let round = 0; performance.now() < end; round++) {
    for (const r of round % 2 ? [...runs].reverse() : runs) await r.cell.burst(r.op);
  }
}
