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
