// A progress bar on stderr, only when stderr is a terminal (pipes and CI logs stay clean).
import cliProgress from 'cli-progress';

/**
 * @param {NodeJS.WriteStream} stream
 * @param {string} [label]  before the bar, e.g. "[2/5]" when several objects are downloaded
 * @returns {{update: (p: {grossBytes: number, netBytes: number, objectBytes: number | null}) => void, stop: () => void}}
 */
export function createProgress(stream, label = '') {
  if (!stream.isTTY) return { update() {}, stop() {} };
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
}
