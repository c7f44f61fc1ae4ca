// A proxy in a process of its own (src/spawn-proxy.js), as npm start and the end-to-end fleet run
// it: it listens and serves, close() ends the process, and a proxy that cannot start says so.
import assert from 'node:assert/strict';
import { spawnProxy } from '../src/spawn-proxy.js';

/** @param {number} pid */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('proxy in its own process', () => {
  it('resolves with its id and URL once it listens, serves, and close() ends the process', async () => {
    const p = await spawnProxy({ args: ['--id', 'spawned-1', '--port', '0', '--no-require-tickets'] });
    try {
      assert.equal(p.id, 'spawned-1');
      assert.match(p.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await (await fetch(`${p.url}/healthz`)).json();
      assert.equal(health.id, 'spawned-1');
      assert.ok(alive(p.pid));
    } finally {
      await p.close();
    }
    assert.equal(alive(p.pid), false, 'the process ended');
    await p.close(); // a second close is harmless
  });

  it('a proxy that exits before it listens rejects with ERR_PROXY_START, and its log lines reach onLog', async () => {
    const lines = /** @type {string[]} */ ([]);
    await assert.rejects(spawnProxy({ args: ['--port', 'nope'], onLog: (l) => lines.push(l) }), { code: 'ERR_PROXY_START' });
    assert.ok(lines.some((l) => /port/.test(l)), lines.join('\n'));
  });
});
