// The page's first media playing, as the page side tells the fleet's warm-up.
import assert from 'node:assert/strict';
import { watchFirstPlay } from '../src/page/media-elements.js';

describe('extension page: the first media playing', () => {
  it('is heard once, by a capturing listener on the document (playing does not bubble), which then goes', () => {
    const doc = new EventTarget();
    /** @type {{type: string, capture: boolean}[]} */
    const added = [];
    let removed = 0;
    const add = doc.addEventListener.bind(doc);
    const remove = doc.removeEventListener.bind(doc);
    doc.addEventListener = (type, fn, o) => { added.push({ type, capture: o === true || (typeof o === 'object' && o?.capture === true) }); add(type, fn, o); };
    doc.removeEventListener = (type, fn, o) => { removed++; remove(type, fn, o); };
    let calls = 0;
    watchFirstPlay(/** @type {any} */ (doc), () => { calls++; });
    assert.deepEqual(added, [{ type: 'playing', capture: true }]);
    assert.equal(calls, 0, 'nothing before a playing');
    doc.dispatchEvent(new Event('playing'));
    doc.dispatchEvent(new Event('playing'));
    assert.deepEqual([calls, removed], [1, 1]);
  });

  /**
   * watchFirstPlay on a document holding these media elements; the calls before and after a `playing`.
   * @param {{paused: boolean, ended: boolean, readyState: number}[]} media
   */
  function callsWith(media) {
    const doc = new EventTarget();
    /** @type {any} */ (doc).querySelectorAll = (/** @type {string} */ sel) => (sel === 'video,audio' ? media : []);
    let calls = 0;
    watchFirstPlay(/** @type {any} */ (doc), () => { calls++; });
    const before = calls;
    doc.dispatchEvent(new Event('playing'));
    return [before, calls];
  }

  it('a media element already playing: called at once, and not again on a later playing', () => {
    assert.deepEqual(callsWith([{ paused: true, ended: false, readyState: 4 }, { paused: false, ended: false, readyState: 4 }]), [1, 1]);
  });

  it('media elements paused, ended or without data to play: nothing until a playing', () => {
    assert.deepEqual(callsWith([{ paused: true, ended: false, readyState: 4 }, { paused: false, ended: true, readyState: 4 }, { paused: false, ended: false, readyState: 2 }]), [0, 1]);
  });

  it('a callback that throws does not reach the page', () => {
    // the listener called directly: an EventTarget would report its error elsewhere, never throw it here
    /** @type {(() => void)[]} */
    const listeners = [];
    const doc = { addEventListener: (/** @type {string} */ _t, /** @type {() => void} */ fn) => listeners.push(fn), removeEventListener() {} };
    watchFirstPlay(/** @type {any} */ (doc), () => { throw new Error('boom'); });
    assert.equal(listeners.length, 1);
    assert.doesNotThrow(() => listeners[0]());
  });
});
