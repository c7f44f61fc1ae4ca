// CPU time of a process (user + system, every thread), so the report can show whether a proxy or
// the client was CPU-bound during a download, and what a download cost each process.
//
// /proc/<pid>/stat counts in clock ticks (10 ms): a proxy that serves 1 MiB over HTTP in 7 ms reads
// 0 or 10 ms. Each thread's /proc/<pid>/task/<tid>/schedstat counts its run time in nanoseconds, so
// cpuSeconds sums those. A thread that ends is no longer listed: this module keeps each process's
// threads' last readings and adds an ended thread's last one to the process's total, losing only
// what it ran after that reading. Where schedstat is missing, the ticks of /proc/<pid>/stat.
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const NS_PER_S = 1e9;

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
 * A /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line: the task's name (its comm, in
 * parentheses, which may itself hold spaces and parentheses), its parent's pid and its CPU time
 * (user + system, to the clock tick).
 * @param {string} text
 * @returns {{ name: string, ppid: number, cpuSeconds: number } | null}  null: not a stat line
 */
export function parseTaskStat(text) {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  // after the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime …
  const f = text.slice(close + 2).trim().split(/\s+/);
  const ppid = Number(f[1]);
  const utime = Number(f[11]);
  const stime = Number(f[12]);
  if (!Number.isInteger(ppid) || !Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return { name: text.slice(open + 1, close), ppid, cpuSeconds: (utime + stime) / clockTicks() };
}

/** @param {number} pid @returns {number | null} */
function statSeconds(pid) {
  try {
    return parseTaskStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.cpuSeconds ?? null;
  } catch {
    return null;
  }
}

/**
 * Each live thread's run time in ns, or null where schedstat cannot be read.
 * @param {number} pid @returns {Map<string, number> | null}
 */
function threadNanoseconds(pid) {
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const threads = new Map();
  for (const tid of tids) {
    try {
      threads.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT' && /** @type {NodeJS.ErrnoException} */ (err).code !== 'ESRCH') return null;
      // the thread ended while the list was read: its last reading counts below
    }
  }
  return threads;
}

/** @type {Map<number, {threads: Map<string, number>, endedNs: number}>} pid → its threads' last readings */
const seen = new Map();

/**
 * CPU seconds a process has used, to the nanosecond: its live threads, and those that ended since
 * this module's first reading of it. Null if it is gone. Only differences between two calls mean
 * anything. The calling thread's own count lags by up to a scheduler tick: for itself a process
 * asks process.cpuUsage().
 * @param {number} pid
 */
export function cpuSeconds(pid) {
  const threads = threadNanoseconds(pid);
  if (!threads || threads.size === 0) {
    seen.delete(pid); // gone (or unreadable: then the ticks, if any)
    return threads ? null : statSeconds(pid);
  }
  const before = seen.get(pid) ?? { threads: new Map(), endedNs: 0 };
  let endedNs = before.endedNs;
  for (const [tid, ns] of before.threads) if (!threads.has(tid)) endedNs += ns;
  seen.set(pid, { threads, endedNs });
  let liveNs = 0;
  for (const ns of threads.values()) liveNs += ns;
  return (endedNs + liveNs) / NS_PER_S;
}

/**
 * The whole machine's CPU time so far (jiffies, every core): busy = all but idle and iowait;
 * steal = time a virtual machine's host ran something else while this machine had work.
 * Null where /proc/stat cannot be read.
 * @returns {{busy: number, total: number, steal: number} | null}
 */
export function machineCpu() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]; // "cpu  user nice system idle iowait irq softirq steal …"
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - v[3] - v[4], total, steal: v[7] };
  } catch {
    return null;
  }
}

/** @typedef {{busy: number, total: number, steal: number}} MachineCpu */

/**
 * Cores busy on average between two machineCpu() samples (0 … cores), NaN without both.
 * @param {MachineCpu | null} a @param {MachineCpu | null} b @param {number} cores
 */
export function busyCores(a, b, cores) {
  if (!a || !b || b.total <= a.total) return NaN;
  return ((b.busy - a.busy) / (b.total - a.total)) * cores;
}

/**
 * The share (0 … 1) of the machine's CPU time its host took between two machineCpu() samples:
 * timings measured then are slower than the machine's. NaN without both.
 * @param {MachineCpu | null} a @param {MachineCpu | null} b
 */
export function stolenShare(a, b) {
  if (!a || !b || b.total <= a.total) return NaN;
  return (b.steal - a.steal) / (b.total - a.total);
}
