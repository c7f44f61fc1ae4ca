// The bench's CPU profile summary: self time per function from a Chromium profile's samples,
// idle left out of the busy time, GC counted apart.
import assert from 'node:assert/strict';
import { summarizeProfile } from '../bench/cpu-profile.js';

const frame = (/** @type {string} */ functionName, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

describe('bench: fleet host CPU profile summary', () => {
  it('charges each time delta to the sample it ends, by function, busiest first, idle not busy', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)') },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('handlePacket', 'chrome-extension://abc/fleet-host.js', 41) },
        { id: 4, callFrame: frame('(garbage collector)') },
        { id: 5, callFrame: frame('', 'chrome-extension://abc/fleet-host.js', 9) },
      ],
      samples: [2, 3, 3, 4, 5, 2],
      timeDeltas: [0, 100, 300, 50, 25, 1000],
    };
    const s = summarizeProfile(profile);
    assert.equal(s.sampledMs, 1.475);
    assert.equal(s.busyMs, 0.475);
    assert.equal(s.gcMs, 0.05);
    assert.deepEqual(s.top.map((f) => [f.name, f.selfMs]), [
      ['handlePacket fleet-host.js:42', 0.4],
      ['(garbage collector)', 0.05],
      ['(anonymous) fleet-host.js:10', 0.025],
    ]);
    assert.ok(Math.abs(s.top[0].ofBusy - 400 / 475) < 1e-9);
  });

  it('keeps the top N and gives 0 shares for a profile that was all idle', () => {
    const s = summarizeProfile({ nodes: [{ id: 1, callFrame: frame('(idle)') }], samples: [1, 1], timeDeltas: [5, -3] }, { top: 1 });
    assert.equal(s.busyMs, 0);
    assert.deepEqual(s.top, []);
  });
});
