// CPU time of a process from /proc/<pid>/stat (user + system), so the report can show whether
// a proxy or the client was CPU-bound during a download.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let ticksPerSecond = 0;
function clockTicks() {
  if (!ticksPerSecond) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100; // Linux's USER_HZ on every common build
    }
  }
  return ticksPerSecond;
}

/**
 * CPU seconds used so far by a process, or null if it is gone.
 * @param {number} pid
 */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // field 3 onwards; comm may hold spaces
    return (Number(fields[11]) + Number(fields[12])) / clockTicks(); // utime, stime (fields 14, 15)
  } catch {
    return null;
  }
}

/**
 * The whole machine's CPU time so far (jiffies, every core): busy = all but idle and iowait.
 * Null where /proc/stat cannot be read.
 * @returns {{busy: number, total: number} | null}
 */
export function machineCpu() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]; // "cpu  user nice system idle iowait irq softirq steal …"
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - v[3] - v[4], total };
  } catch {
    return null;
  }
}

/**
 * Cores busy on average between two machineCpu() samples (0 … cores), NaN without both.
 * @param {{busy: number, total: number} | null} a @param {{busy: number, total: number} | null} b @param {number} cores
 */
export function busyCores(a, b, cores) {
  if (!a || !b || b.total <= a.total) return NaN;
  return ((b.busy - a.busy) / (b.total - a.total)) * cores;
}
