// CPU time of each of the browser's threads, read from Linux's /proc for the browser's process
// and its descendants (renderers, the network service, the GPU process), grouped by process type
// and thread name: where a mode's bytes cost the browser outside any page's JS, which the
// profiler of a document does not see (a data channel's packets cross the network service, the
// renderer's IO thread and its WebRTC thread before a message reaches JS).
import { readdir, readFile } from 'node:fs/promises';
import { parseTaskStat } from '@mutp/testbed/proc-cpu';

const MS_PER_S = 1000;

/**
 * A Chromium process's type from its command line: `browser` (the browser's own program with no
 * --type), `renderer`, `gpu-process`, `utility:<service>` (the network service:
 * `utility:NetworkService`), or another program's name (`chrome_crashpad_handler`).
 * @param {string} cmdline  /proc/<pid>/cmdline: NUL-separated, or one string with spaces (Chromium's
 *   child processes rewrite their title so)
 */
export function processType(cmdline) {
  const args = cmdline.split(/[\0 ]/);
  const type = args.find((a) => a.startsWith('--type='))?.slice('--type='.length);
  if (!type) {
    const program = (args[0] ?? '').split('/').pop() ?? '';
    return program === '' || program === 'chromium' || program === 'chrome' ? 'browser' : program;
  }
  const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice('--utility-sub-type='.length);
  return sub ? `${type}:${sub.split('.').pop()}` : type;
}

/** @param {string} file */
const readOrNull = (file) => readFile(file, 'utf8').catch(() => null);

/**
 * CPU ms so far of every thread of `rootPid` and of its descendants, summed per `type/thread name`.
 * A thread that ended is not counted: take both snapshots while the browser runs.
 * @param {number} rootPid
 * @returns {Promise<Map<string, number>>}
 */
export async function browserThreadCpu(rootPid) {
  /** @type {Map<number, number>} pid → parent pid, for every process */
  const parent = new Map();
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).map(Number);
  await Promise.all(pids.map(async (pid) => {
    const stat = await readOrNull(`/proc/${pid}/stat`);
    const p = stat && parseTaskStat(stat);
    if (p) parent.set(pid, p.ppid);
  }));
  const inTree = (/** @type {number} */ pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === rootPid) return true;
    return false;
  };
  /** @type {Map<string, number>} */
  const cpu = new Map();
  await Promise.all([...parent.keys()].filter(inTree).map(async (pid) => {
    const cmdline = await readOrNull(`/proc/${pid}/cmdline`);
    if (cmdline === null) return; // ended meanwhile
    const type = processType(cmdline);
    const tids = await readdir(`/proc/${pid}/task`).catch(() => []);
    for (const tid of tids) {
      const stat = await readOrNull(`/proc/${pid}/task/${tid}/stat`);
      const t = stat && parseTaskStat(stat);
      if (!t) continue;
      const key = `${type}/${t.name}`;
      cpu.set(key, (cpu.get(key) ?? 0) + t.cpuSeconds * MS_PER_S);
    }
  }));
  return cpu;
}

/**
 * What each thread group spent between two snapshots (ms), the busiest first; groups that spent
 * nothing are left out.
 * @param {Map<string, number>} before @param {Map<string, number>} after
 * @returns {{ thread: string, ms: number }[]}
 */
export function threadCpuSpent(before, after) {
  return [...after].map(([thread, ms]) => ({ thread, ms: ms - (before.get(thread) ?? 0) }))
    .filter((t) => t.ms > 0).sort((a, b) => b.ms - a.ms);
}
