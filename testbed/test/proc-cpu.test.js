// cpuSeconds reads another process's CPU from /proc to the nanosecond, its ended threads included.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { skipOrFail } from '@mutp/testkit/require-tool';
import { busyCores, cpuSeconds, machineCpu, parseTaskStat, stolenShare } from '../src/proc-cpu.js';

// A child that burns CPU on command, on its main thread ("main MS") or on a worker thread that
// stays alive until told ("worker MS"), ends its worker ("end"), and answers "done" when idle again.
const CHILD = `
const { Worker } = require('node:worker_threads');
const burn = (ms) => { const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ms); };
let worker = null;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const [cmd, ms] = line.split(' ');
  if (cmd === 'main') { burn(Number(ms)); console.log('done'); }
  if (cmd === 'worker') {
    worker = new Worker('const burn = ' + burn + '; require("node:worker_threads").parentPort.on("message", (ms) => { burn(ms); require("node:worker_threads").parentPort.postMessage("done"); });', { eval: true });
    worker.once('message', () => console.log('done'));
    worker.postMessage(Number(ms));
  }
  if (cmd === 'end') worker.terminate().then(() => console.log('done'));
});
console.log('done');
`;

describe('proc-cpu: a process\'s CPU from /proc', function () {
  this.timeout(20_000);
  /** @type {import('node:child_process').ChildProcess} */
  let child;
  /** @type {AsyncIterator<string>} */
  let lines;
  /** @param {string} cmd */
  const ask = async (cmd) => {
    if (cmd) child.stdin?.write(`${cmd}\n`);
    assert.equal((await lines.next()).value, 'done');
  };

  before(async function () {
    if (!existsSync('/proc/self/task')) skipOrFail(this, 'no /proc/<pid>/task (Linux only)');
    child = spawn(process.execPath, ['-e', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })[Symbol.asyncIterator]();
    await ask('');
  });
  after(() => child?.kill());

  it('counts a few milliseconds that /proc/<pid>/stat\'s 10 ms ticks would round away', async () => {
    const deltas = [];
    for (let i = 0; i < 5; i++) {
      const c0 = /** @type {number} */ (cpuSeconds(/** @type {number} */ (child.pid)));
      await ask('main 3');
      deltas.push(/** @type {number} */ (cpuSeconds(/** @type {number} */ (child.pid))) - c0);
    }
    // ticks would read each as 0 or a whole 10 ms; the process's other threads may add some (load)
    for (const d of deltas) assert.ok(d >= 0.0025, `3 ms of CPU read as ${d} s (${deltas.join(', ')})`);
    assert.ok(deltas.some((d) => Math.abs(d * 100 - Math.round(d * 100)) > 0.01), `every reading a whole tick: ${deltas.join(', ')}`);
  });

  it('keeps an ended thread\'s time in the total', async () => {
    const c0 = /** @type {number} */ (cpuSeconds(/** @type {number} */ (child.pid)));
    await ask('worker 60');
    const c1 = /** @type {number} */ (cpuSeconds(/** @type {number} */ (child.pid)));
    assert.ok(c1 - c0 >= 0.055, `the worker's 60 ms read as ${c1 - c0} s`);
    await ask('end');
    const c2 = /** @type {number} */ (cpuSeconds(/** @type {number} */ (child.pid)));
    assert.ok(c2 >= c1, `the total fell from ${c1} to ${c2} s when the worker ended`);
  });

  it('is null for a process that is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    assert.equal(cpuSeconds(/** @type {number} */ (gone.pid)), null);
  });
});

describe('proc-cpu: the machine\'s CPU from /proc/stat', () => {
  it('takes busy cores and the host\'s steal from two samples', () => {
    const a = { busy: 100, total: 400, steal: 10 };
    const b = { busy: 250, total: 600, steal: 60 };
    assert.equal(busyCores(a, b, 2), 1.5);
    assert.equal(stolenShare(a, b), 0.25);
    assert.ok(Number.isNaN(stolenShare(a, null)) && Number.isNaN(stolenShare(b, a)));
  });

  it('reads steal from this machine, within its total', function () {
    const m = machineCpu();
    if (!m) return skipOrFail(this, 'no /proc/stat (Linux only)');
    assert.ok(Number.isInteger(m.steal) && m.steal >= 0 && m.steal <= m.total && m.busy <= m.total, JSON.stringify(m));
  });
});

describe('proc-cpu: a task\'s stat line', () => {
  it('reads a thread\'s name, parent and CPU time, a name with spaces and parentheses included', function () {
    if (process.platform !== 'linux') this.skip(); // the clock tick is asked of getconf
    const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    const line = '4242 (Web (x) N) S 4200 4200 4200 0 -1 4194560 10 0 0 0 123 45 0 0 20 0 9 0 100 0 0\n';
    assert.deepEqual(parseTaskStat(line), { name: 'Web (x) N', ppid: 4200, cpuSeconds: (123 + 45) / ticksPerSecond });
    assert.equal(parseTaskStat('no name here'), null);
    assert.equal(parseTaskStat('1 (x) S'), null);
  });
});
