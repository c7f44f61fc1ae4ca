// How often a process's threads went to sleep and were woken again: each thread's voluntary
// context switches (/proc/<pid>/task/<tid>/status), summed by thread name. In a WebRTC process at
// a few MB/s these hand-offs, not the bytes, are much of the CPU: libjuice's poll thread,
// libdatachannel's worker threads and Node's event loop each wake per packet batch.
import { readFileSync, readdirSync } from 'node:fs';

/**
 * Voluntary context switches so far per thread name ("node", "RTC worker", "juice poll", …).
 * Threads that ended are not counted: read it while the threads of interest live.
 * @param {number} pid
 * @returns {Record<string, number> | null}  null when the process is gone
 */
export function threadSwitches(pid) {
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  /** @type {Record<string, number>} */
  const byName = {};
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      if (match) byName[name] = (byName[name] ?? 0) + Number(match[1]);
    } catch {
      // the thread ended while the list was read
    }
  }
  return byName;
}

/**
 * What each thread name gained between two readings (a name that appeared later counts from 0).
 * @param {Record<string, number>} before @param {Record<string, number>} after
 * @returns {Record<string, number>}
 */
export function switchesBetween(before, after) {
  return Object.fromEntries(Object.entries(after).map(([name, n]) => [name, Math.max(0, n - (before[name] ?? 0))]));
}
