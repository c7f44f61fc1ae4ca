// A one-line progress bar on a TTY; on a pipe or in CI, a plain line every 10%.
const BAR_CELLS = 30;
const PLAIN_EVERY_FRACTION = 0.1;

/** @param {NodeJS.WriteStream} out */
export function createProgress(out = process.stderr) {
  const t0 = Date.now();
  let lastPlain = -1;
  return {
    /** @param {number} done @param {number} total @param {string} [note] */
    update(done, total, note = '') {
      const f = total ? done / total : 1;
      const elapsed = (Date.now() - t0) / 1000;
      const eta = done ? (elapsed / done) * (total - done) : NaN;
      const text = `${done}/${total} ${(f * 100).toFixed(0)}% ${elapsed.toFixed(0)} s elapsed${Number.isFinite(eta) ? `, ~${eta.toFixed(0)} s left` : ''} ${note}`;
      if (out.isTTY) {
        const cells = Math.round(f * BAR_CELLS);
        out.write(`\r[${'#'.repeat(cells)}${'.'.repeat(BAR_CELLS - cells)}] ${text}`.slice(0, (out.columns || 120) - 1).padEnd((out.columns || 120) - 1));
        if (done === total) out.write('\n');
      } else {
        const step = Math.floor(f / PLAIN_EVERY_FRACTION);
        if (step !== lastPlain) {
          lastPlain = step;
          out.write(`${text}\n`);
        }
      }
    },
  };
}
