// A progress bar on stderr, only when stderr is a terminal (pipes and CI logs stay clean): the
// bar's library is loaded only then.

/**
 * @typedef {{update: (p: {grossBytes: number, netBytes: number, objectBytes: number | null}) => void, stop: () => void}} Progress
 */

/** @type {Progress} */
const NO_PROGRESS = { update() {}, stop() {} };

/**
 * A maker of progress bars on `stream`, one per download.
 * @param {NodeJS.WriteStream} stream
 * @returns {Promise<(label?: string) => Progress>}  label: before the bar, e.g. "[2/5]" when several objects are downloaded
 */
export async function progressBars(stream) {
  if (!stream.isTTY) return () => NO_PROGRESS;
  const { default: cliProgress } = await import('cli-progress');
  return (label = '') => {
    const bar = new cliProgress.SingleBar({
      stream,
      format: `${label ? ` ${label}` : ''} {bar} {percentage}% | {net} MB net, {gross} MB gross`,
      hideCursor: true,
      clearOnComplete: true,
    }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      update({ grossBytes, netBytes, objectBytes }) {
        const total = objectBytes ?? Math.max(netBytes, 1);
        const payload = { net: (netBytes / 1e6).toFixed(2), gross: (grossBytes / 1e6).toFixed(2) };
        if (!started) { bar.start(total, netBytes, payload); started = true; }
        bar.setTotal(total);
        bar.update(netBytes, payload);
      },
      stop() { if (started) bar.stop(); },
    };
  };
}
