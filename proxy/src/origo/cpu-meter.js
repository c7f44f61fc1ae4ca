/**
 * CPU use of this process as a fraction of one core since the previous call (status.cpu).
 * @param {{ cpuUsage?: () => { user: number, system: number }, now?: () => number }} [io]
 * @returns {() => number}
 */
export function createCpuMeter(io = {}) {
  const cpuUsage = io.cpuUsage ?? (() => process.cpuUsage());
  const now = io.now ?? (() => performance.now());
  let last = cpuUsage();
  let lastAt = now();
  return () => {
    const cur = cpuUsage();
    const t = now();
    const usedUs = cur.user - last.user + (cur.system - last.system);
    const wallUs = (t - lastAt) * 1000;
    last = cur;
    lastAt = t;
    if (wallUs <= 0) return 0;
    // Native WebRTC threads can push the sum over one core; the contract is 0..1.
    return Math.min(1, Math.max(0, usedUs / wallUs));
  };
}
