// The feedback outbox: each proxy's newest feedback goes once the queued tasks have run; other
// messages go at once, after the feedback held for that proxy.
import assert from 'node:assert/strict';
import { createFeedbackOutbox } from '../src/mutp/feedback-outbox.js';

/** An outbox whose "after the queued tasks" is run by the test, and the log of what went out. */
function harness() {
  /** @type {[string, number][]} */
  const sent = [];
  /** @type {(() => void)[]} */
  const queued = [];
  const outbox = createFeedbackOutbox((/** @type {string} */ link, bytes) => sent.push([link, bytes[0]]), (run) => { queued.push(run); });
  const runQueued = () => { for (const run of queued.splice(0)) run(); };
  return { outbox, sent, queued, runQueued };
}

const msg = (/** @type {number} */ tag) => Uint8Array.of(tag);

describe('feedback outbox', () => {
  it('a burst of feedback to one proxy sends only the newest, once the queued tasks have run', () => {
    const { outbox, sent, queued, runQueued } = harness();
    outbox.send('a', msg(1), true);
    outbox.send('a', msg(2), true);
    outbox.send('b', msg(3), true);
    outbox.send('a', msg(4), true);
    assert.deepEqual(sent, [], 'nothing goes before the queued tasks');
    assert.equal(queued.length, 1, 'one flush for the burst');
    runQueued();
    assert.deepEqual(sent, [['a', 4], ['b', 3]]);
    assert.equal(outbox.replaced, 2);
    outbox.send('a', msg(5), true);
    runQueued();
    assert.deepEqual(sent.at(-1), ['a', 5], 'the next burst is flushed again');
  });

  it('a message that is not replaceable goes at once, after the feedback held for its proxy (order kept)', () => {
    const { outbox, sent, runQueued } = harness();
    outbox.send('a', msg(1), true);
    outbox.send('b', msg(2), true);
    outbox.send('a', msg(9), false); // e.g. done
    assert.deepEqual(sent, [['a', 1], ['a', 9]]);
    runQueued();
    assert.deepEqual(sent, [['a', 1], ['a', 9], ['b', 2]], 'the held feedback is not sent twice');
  });

  it('clear: the download ended, nothing held goes', () => {
    const { outbox, sent, runQueued } = harness();
    outbox.send('a', msg(1), true);
    outbox.clear();
    runQueued();
    assert.deepEqual(sent, []);
  });

  it('by default it waits for a 0 ms timer: tasks queued before it run first', async () => {
    /** @type {string[]} */
    const events = [];
    const outbox = createFeedbackOutbox((link, bytes) => events.push(`sent ${link}${bytes[0]}`));
    setTimeout(() => events.push('queued task'), 0);
    outbox.send('a', msg(1), true);
    outbox.send('a', msg(2), true);
    events.push('same task');
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(events, ['same task', 'queued task', 'sent a2']);
  });
});
