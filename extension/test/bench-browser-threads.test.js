// The bench's reading of the browser's threads from /proc: a process's type, and each thread's CPU.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseTaskStat } from '@mutp/testbed/proc-cpu';
import { processType, threadCpuSpent, browserThreadCpu } from '../bench/browser-threads.js';

describe('bench: the browser\'s threads from /proc', () => {
  it('tells the browser, its renderers and its network service apart, however the command line is written', () => {
    assert.equal(processType('/usr/lib/chromium/chromium\0--no-sandbox\0--headless=new\0'), 'browser');
    assert.equal(processType('/usr/lib/chromium/chromium --type=renderer --crashpad-handler-pid=0'), 'renderer');
    assert.equal(processType('/usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService --lang=en-US'), 'utility:NetworkService');
    assert.equal(processType('/usr/lib/chromium/chromium\0--type=gpu-process\0'), 'gpu-process');
    assert.equal(processType('/usr/lib/chromium/chrome_crashpad_handler\0--monitor-self\0'), 'chrome_crashpad_handler');
  });

  it('gives what each thread group spent between two readings, the busiest first, idle ones left out', () => {
    const before = new Map([['renderer/A', 100], ['renderer/B', 50], ['browser/C', 10]]);
    const after = new Map([['renderer/A', 130], ['renderer/B', 50], ['browser/C', 80], ['browser/D', 5]]);
    assert.deepEqual(threadCpuSpent(before, after), [{ thread: 'browser/C', ms: 70 }, { thread: 'renderer/A', ms: 30 }, { thread: 'browser/D', ms: 5 }]);
  });

  it('charges a process tree\'s CPU to the thread that spent it', async function () {
    if (process.platform !== 'linux') this.skip();
    const me = `${processType(readFileSync('/proc/self/cmdline', 'utf8'))}/${parseTaskStat(readFileSync('/proc/self/stat', 'utf8'))?.name}`;
    const before = await browserThreadCpu(process.pid);
    const from = process.cpuUsage();
    while (process.cpuUsage(from).user < 300_000); // 300 ms of CPU, spent by this (the main) thread
    const spent = threadCpuSpent(before, await browserThreadCpu(process.pid));
    assert.ok((spent.find((t) => t.thread === me)?.ms ?? 0) >= 150, `${me} in ${JSON.stringify(spent)}`);
  });
});
