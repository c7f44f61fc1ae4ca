// bench:players --threads: how busy a page's threads were, read from a Chromium trace.
import assert from 'node:assert/strict';
import { pageThreadBusy } from '../bench/page-threads.js';

const PAGE = 'http://127.0.0.1:8000/play.html?player=hls';
const PID = 41; // the page's renderer
const MAIN = 1;
const WORKER = 7;
const meta = (pid, tid, name) => ({ ph: 'M', name: 'thread_name', pid, tid, args: { name } });
const task = (pid, tid, ts, dur) => ({ ph: 'X', name: 'ThreadControllerImpl::RunTask', pid, tid, ts, dur });

/** A trace: the page's renderer (main thread, its worker, a compositor), another renderer, the browser's commits. */
function trace() {
  return [
    meta(PID, MAIN, 'CrRendererMain'), meta(PID, WORKER, 'DedicatedWorker thread'), meta(PID, 9, 'Compositor'), meta(50, 1, 'CrRendererMain'),
    { ph: 'X', name: 'FrameCommittedInBrowser', pid: 2, tid: 2, ts: 900, args: { data: { url: 'about:blank', processId: 50 } } },
    { ph: 'X', name: 'FrameCommittedInBrowser', pid: 2, tid: 2, ts: 990, args: { data: { url: PAGE, processId: PID } } },
    { ph: 'R', name: 'navigationStart', pid: PID, tid: MAIN, ts: 1000 },
    task(PID, MAIN, 500, 400), // before the navigation: not this page's
    task(PID, MAIN, 1000, 2000),
    task(PID, MAIN, 1500, 300), // run inside the one before: counted once
    task(PID, MAIN, 4000, 1000),
    task(PID, WORKER, 2000, 5000),
    task(PID, 9, 2000, 600),
    task(50, 1, 1000, 90_000), // another renderer
  ];
}

describe('bench page-threads: a page\'s busy threads from its trace', () => {
  it('sums the top-level tasks of the page\'s main thread and of its busiest other thread, from the navigation on', () => {
    assert.deepEqual(pageThreadBusy(trace(), PAGE), { mainMs: 3, otherMs: 5, otherName: 'DedicatedWorker thread' });
  });

  it('has nothing to say of a page whose renderer the trace does not show', () => {
    assert.equal(pageThreadBusy(trace(), 'http://127.0.0.1:8000/other.html'), null);
    assert.equal(pageThreadBusy(trace().filter((e) => e.name !== 'thread_name'), PAGE), null);
  });
});
