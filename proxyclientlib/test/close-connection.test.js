// closeConnection: a libdatachannel connection the stack is closing itself (failed, or
// disconnected by the remote end's shutdown) is closed once the stack says it closed it (the stock
// node-datachannel close() racing the stack's own close can crash the process).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeConnection } from '@mutp/proxyclientlib/close-connection';

/** A short grace (ms) for the tests; the default is SETTLE_CLOSE_GRACE_MS. */
const GRACE_MS = 40;

/** A peer connection's surface closeConnection uses, counting close() calls. */
class FakePeerConnection extends EventTarget {
  /** @param {string} state */
  constructor(state) {
    super();
    this.connectionState = state;
    this.closes = 0;
  }
  close() {
    this.closes++;
    this.connectionState = 'closed';
  }
  /** @param {string} state */
  reach(state) {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}

describe('closeConnection', function () {
  it('closes a connected (or new) connection at once', () => {
    for (const state of ['connected', 'new', 'connecting', 'closed']) {
      const pc = new FakePeerConnection(state);
      closeConnection(/** @type {any} */ (pc));
      assert.equal(pc.closes, 1, state);
    }
  });

  for (const state of ['failed', 'disconnected']) {
    it(`closes a ${state} connection once the stack reports it closed, not before, and once`, async () => {
      const pc = new FakePeerConnection(state);
      closeConnection(/** @type {any} */ (pc), GRACE_MS);
      assert.equal(pc.closes, 0, 'not while the stack may be closing it on its own thread');
      pc.reach('failed');
      assert.equal(pc.closes, 0);
      pc.reach('closed');
      assert.equal(pc.closes, 1);
      await sleep(2 * GRACE_MS);
      assert.equal(pc.closes, 1, 'closed once: the grace running out later closes nothing more');
    });
  }

  it('closes a failed connection the stack never reports closed after its grace', async () => {
    const pc = new FakePeerConnection('failed');
    closeConnection(/** @type {any} */ (pc), GRACE_MS);
    await sleep(GRACE_MS / 4);
    assert.equal(pc.closes, 0);
    await sleep(2 * GRACE_MS);
    assert.equal(pc.closes, 1);
    pc.reach('closed');
    assert.equal(pc.closes, 1, 'its listener was removed');
  });

  it('a close() that throws (already closed) is ignored', () => {
    const pc = new FakePeerConnection('connected');
    pc.close = () => { throw new Error('already closed'); };
    assert.doesNotThrow(() => closeConnection(/** @type {any} */ (pc)));
  });
});
