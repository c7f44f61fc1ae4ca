// The feedback outbox: the newest feedback goes to every proxy owed one once the queued tasks have
// run (or once a long burst has replaced enough); other messages go at once, after the feedback
// held for that proxy.
import assert from 'node:assert/strict';
import { createFeedbackOutbox, FLUSH_AFTER_REPLACED } from '../src/mutp/feedback-outbox.js';

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
  it('a burst of feedback sends only the newest, to every proxy owed one, once the queued tasks have run', () => {
    const { outbox, sent, queued, runQueued } = harness();
    outbox.send('a', msg(1), true);
    outbox.send('a', msg(2), true);
    outbox.send('b', msg(3), true);
    outbox.send('a', msg(4), true);
    assert.deepEqual(sent, [], 'nothing goes before the queued tasks');
    assert.equal(queued.length, 1, 'one flush for the burst');
    runQueued();
    // b gets 4, not its own 3: every proxy must learn the same state (each splits the generations
    // entering the window by the rates in it)
    assert.deepEqual(sent, [['a', 4], ['b', 4]]);
    assert.equal(outbox.replaced, 3);
    outbox.send('a', msg(5), true);
    runQueued();
    assert.deepEqual(sent.at(-1), ['a', 5], 'the next burst is flushed again');
  });

  it('a message that is not replaceable goes at once, after the feedback held for its proxy (order kept)', () => {
    const { outbox, sent, runQueued } = harness();
    outbox.send('a', msg(1), true);
    outbox.send('b', msg(2), true);
    outbox.send('a', msg(9), false); // e.g. done
    assert.deepEqual(sent, [['a', 2], ['a', 9]], 'a gets the newest feedback (2) first');
    runQueued();
    assert.deepEqual(sent, [['a', 2], ['a', 9], ['b', 2]], 'the held feedback is not sent twice');
  });

  it('a long burst does not wait for the queued tasks: every FLUSH_AFTER_REPLACED replaced, the newest goes', () => {
    const { outbox, sent, runQueued } = harness();
    let tag = 0;
    for (let i = 0; i < FLUSH_AFTER_REPLACED; i++) outbox.send(i % 2 ? 'b' : 'a', msg(++tag), true);
    assert.deepEqual(sent, [], 'held while fewer were replaced');
    outbox.send('a', msg(++tag), true);
    assert.deepEqual(sent, [['a', tag], ['b', tag]], 'sent at once, the newest to both');
    for (let i = 0; i < FLUSH_AFTER_REPLACED; i++) outbox.send('b', msg(++tag), true);
    assert.equal(sent.length, 2, 'counting starts again after a send');
    runQueued();
    assert.deepEqual(sent.slice(2), [['b', tag]], 'the rest goes with the queued tasks, to b alone');
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
