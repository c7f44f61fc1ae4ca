// The HTTP modes' digest lists and block vote (sans-IO): the wire format is checked at the edge,
// and no single source is believed while two or more are live.
import assert from 'node:assert/strict';
import {
  BLOCK_BYTES, DIGEST_HEADER_BYTES, SPAN_DIGEST_HEADER_BYTES, blockCount, blocksOfRange, createBlockVote, decodeDigestList,
  digestList, encodeDigestList, spanDigestList, spanListBytes,
} from '../index.js';

const SIZE = 3 * BLOCK_BYTES + 1234; // a short last block
const bytes = (/** @type {number} */ n, /** @type {number} */ seed) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 0xff);
const truth = bytes(SIZE, 1);
const other = bytes(SIZE, 2); // another object of the same size
const block = (/** @type {Uint8Array} */ d, /** @type {number} */ b) => d.subarray(b * BLOCK_BYTES, Math.min(d.byteLength, (b + 1) * BLOCK_BYTES));
const codes = (/** @type {any} */ v) => v.pollLiars().map((/** @type {any} */ x) => `${x.source}:${x.code}`);

describe('digest lists (wire)', () => {
  it('round-trips, one 8-byte entry per 64 KiB block, the last block short', () => {
    const list = digestList(truth);
    assert.equal(blockCount(SIZE), 4);
    assert.equal(list.digests.byteLength, 4 * 8);
    const wire = encodeDigestList(list);
    assert.equal(wire.byteLength, DIGEST_HEADER_BYTES + 32);
    const back = decodeDigestList(wire);
    assert.ok(back.ok);
    assert.equal(back.list.objectBytes, SIZE);
    assert.deepEqual([...back.list.digests], [...list.digests]);
    assert.ok(decodeDigestList(encodeDigestList(digestList(new Uint8Array(0)))).ok, 'an empty object has an empty list');
  });

  it('refuses short, long, foreign and oversized lists with ERR_BAD_DIGESTS, never throwing', () => {
    const wire = encodeDigestList(digestList(truth));
    const variants = [
      wire.subarray(0, 5), // shorter than the header
      wire.subarray(0, wire.byteLength - 1), // one entry byte missing
      Uint8Array.of(...wire, 0), // one byte too many
      Object.assign(wire.slice(), { 0: 2 }), // version
      Object.assign(wire.slice(), { 1: 9 }), // algorithm
      Object.assign(wire.slice(), { 2: 4 }), // entry size
      Object.assign(wire.slice(), { 3: 12 }), // block size
      Object.assign(wire.slice(), { 4: 1 }), // object of 4 GiB and more
    ];
    for (const v of variants) {
      const r = decodeDigestList(v);
      assert.equal(r.ok, false);
      assert.equal(/** @type {any} */ (r).error.code, 'ERR_BAD_DIGESTS');
    }
    assert.equal(decodeDigestList(/** @type {any} */ ('not bytes')).ok, false);
  });

  it('a span list holds the blocks of one range, hashed from a copy of that range only (version 2)', () => {
    const span = blocksOfRange({ start: BLOCK_BYTES + 5, end: 2 * BLOCK_BYTES + 1 }); // blocks 1 and 2
    const copy = truth.subarray(BLOCK_BYTES, 3 * BLOCK_BYTES); // what a proxy fetched: those blocks
    const list = spanDigestList(copy, BLOCK_BYTES, SIZE, span);
    assert.equal(list.firstBlock, 1);
    assert.deepEqual([...list.digests], [...digestList(truth).digests.subarray(8, 24)]);
    const wire = encodeDigestList(list);
    assert.equal(wire[0], 2);
    assert.equal(wire.byteLength, SPAN_DIGEST_HEADER_BYTES + 16);
    assert.equal(spanListBytes(span, SIZE), wire.byteLength);
    const back = decodeDigestList(wire, span);
    assert.ok(back.ok);
    assert.deepEqual(back.list, { objectBytes: SIZE, firstBlock: 1, digests: list.digests });
    // a span past the object's end is clipped to it: blocks 3 (the short last one) on
    const tail = spanDigestList(truth.subarray(3 * BLOCK_BYTES), 3 * BLOCK_BYTES, SIZE, { first: 3, end: 9 });
    assert.ok(decodeDigestList(encodeDigestList(tail), { first: 3, end: 9 }).ok);
    assert.equal(tail.digests.byteLength, 8);
    // a span of every block is a whole list, version 1, as every client reads
    const all = encodeDigestList(spanDigestList(truth, 0, SIZE, { first: 0, end: 99 }));
    assert.equal(all[0], 1);
    assert.deepEqual(all, encodeDigestList(digestList(truth)));
    assert.throws(() => spanDigestList(copy, BLOCK_BYTES, SIZE, { first: 0, end: 2 }), RangeError, 'the copy lacks block 0');
  });

  it('refuses a span list of other blocks than asked, and reads a whole list for any span', () => {
    const span = { first: 1, end: 3 };
    const wire = encodeDigestList(spanDigestList(truth, 0, SIZE, span));
    for (const [want, why] of /** @type {const} */ ([[{ first: 0, end: 3 }, 'starts elsewhere'], [{ first: 1, end: 4 }, 'too few entries'], [{ first: 1, end: 2 }, 'too many entries']])) {
      const r = decodeDigestList(wire, want);
      assert.equal(r.ok, false, why);
      assert.equal(/** @type {any} */ (r).error.code, 'ERR_BAD_DIGESTS');
    }
    assert.equal(decodeDigestList(wire).ok, false, 'a span list is not a whole list');
    assert.equal(decodeDigestList(wire.subarray(0, 14), span).ok, false, 'shorter than its header');
    const whole = decodeDigestList(encodeDigestList(digestList(truth)), span); // a proxy that lists the whole object
    assert.ok(whole.ok);
    assert.equal(whole.list.firstBlock, 0);
  });
});

describe('createBlockVote', () => {
  it('needs a strict majority of the live sources: 2 of 3, and 3 of 4', () => {
    const v3 = createBlockVote({ sources: 3 });
    v3.addList(0, digestList(truth));
    assert.equal(v3.size(), null, 'one list of three decides nothing');
    assert.equal(v3.offer(0, 0, block(truth, 0)), 'wait');
    v3.addList(1, digestList(truth));
    assert.equal(v3.size(), SIZE);
    assert.equal(v3.recheck(0, 0), 'ok');
    const v4 = createBlockVote({ sources: 4 });
    v4.addList(0, digestList(truth));
    v4.addList(1, digestList(truth));
    assert.equal(v4.size(), null, 'two of four is no majority');
    v4.addList(2, digestList(truth));
    assert.ok(v4.decided(3));
    assert.equal(v4.verified(), true);
  });

  it('a list that disagrees with the majority names its source; its bytes are refused', () => {
    const v = createBlockVote({ sources: 4 });
    v.addList(1, digestList(other));
    v.addList(0, digestList(truth));
    v.addList(2, digestList(truth));
    assert.ok(!v.decided(0), 'size agreed, but blocks need 3 of 4 until the liar is out');
    v.addList(3, digestList(truth));
    assert.deepEqual(codes(v), ['1:ERR_INTEGRITY']);
    assert.equal(v.offer(1, 0, block(truth, 0)), 'bad');
    assert.equal(v.offer(2, 0, block(truth, 0)), 'ok');
  });

  it('a list that comes after the vote must match it', () => {
    const v = createBlockVote({ sources: 3 });
    v.addList(0, digestList(truth));
    v.addList(1, digestList(truth));
    assert.ok(v.decided(2));
    const lying = digestList(truth);
    lying.digests[2 * 8] ^= 1;
    v.addList(2, lying);
    assert.deepEqual(codes(v), ['2:ERR_INTEGRITY']);
  });

  it('bytes that do not match the accepted digest name their source', () => {
    const v = createBlockVote({ sources: 3 });
    v.addList(0, digestList(truth));
    v.addList(1, digestList(truth));
    const bad = block(truth, 2).slice();
    bad[7] ^= 1;
    assert.equal(v.offer(2, 2, bad), 'bad');
    assert.deepEqual(codes(v), ['2:ERR_INTEGRITY']);
    assert.equal(v.verified(), true);
  });

  it('bytes that do not match the source\'s own list name it, even while nothing is decided', () => {
    const v = createBlockVote({ sources: 2 });
    const lying = digestList(truth);
    lying.digests[0] ^= 1;
    v.addList(1, lying);
    assert.equal(v.offer(1, 0, block(truth, 0)), 'bad', 'its bytes are the truth, its list is not');
    assert.deepEqual(codes(v), ['1:ERR_INTEGRITY']);
    v.addList(0, digestList(truth));
    assert.equal(v.offer(0, 0, block(truth, 0)), 'ok', 'the last live source decides alone');
    assert.equal(v.verified(), false, 'but then nothing was checked against a second source');
  });

  it('the object size is voted too: a size liar is named', () => {
    const v = createBlockVote({ sources: 3 });
    v.addList(0, digestList(truth.subarray(0, SIZE - 1)));
    v.addList(1, digestList(truth));
    v.addList(2, digestList(truth));
    assert.equal(v.size(), SIZE);
    assert.deepEqual(codes(v), ['0:ERR_INTEGRITY']);
  });

  it('two self-consistent sources that disagree: nobody is believed, nothing is named', () => {
    const v = createBlockVote({ sources: 2 });
    v.addList(0, digestList(truth));
    v.addList(1, digestList(other));
    assert.equal(v.offer(0, 1, block(truth, 1)), 'wait');
    assert.equal(v.offer(1, 1, block(other, 1)), 'wait');
    assert.ok(v.stuck(1));
    assert.deepEqual(codes(v), []);
  });

  it('a source that failed before its list does not count: the rest decide', () => {
    const v = createBlockVote({ sources: 3 });
    v.addList(0, digestList(truth));
    v.addList(1, digestList(other));
    assert.ok(!v.decided(0));
    v.fail(2);
    assert.ok(v.sizeStuck() === false && v.stuck(0), 'one against one');
    const w = createBlockVote({ sources: 3 });
    w.addList(0, digestList(truth));
    w.fail(1);
    w.fail(2);
    assert.equal(w.offer(0, 3, block(truth, 3)), 'ok');
    assert.equal(w.verified(), false);
  });

  it('response headers vote for the size until the list comes, and served bytes for the blocks: no list needed when they agree', () => {
    const v = createBlockVote({ sources: 3 });
    v.claimSize(0, SIZE);
    v.claimSize(1, SIZE);
    assert.equal(v.size(), SIZE);
    assert.equal(v.offer(0, 0, block(truth, 0)), 'wait');
    assert.equal(v.offer(1, 0, block(truth, 0)), 'ok', 'two sources\' bytes are a majority of three');
    v.addList(1, { ...digestList(truth), objectBytes: SIZE - 1 });
    assert.deepEqual(codes(v), ['1:ERR_INTEGRITY'], 'a list that contradicts its own response');
  });

  it('nobody left: not a dispute', () => {
    const v = createBlockVote({ sources: 2 });
    v.claimSize(0, SIZE);
    v.fail(1);
    assert.equal(v.size(), SIZE);
    v.fail(0);
    assert.equal(v.stuck(0), false);
  });

  it('one source: decided by itself, never verified', () => {
    const v = createBlockVote({ sources: 1 });
    v.addList(0, digestList(truth));
    assert.equal(v.offer(0, 0, block(truth, 0)), 'ok');
    assert.equal(v.verified(), false);
  });

  it('a range votes on its blocks only: span lists decide them; a liar of a span is named; a whole list counts as well', () => {
    const span = { first: 1, end: 3 };
    const lie = spanDigestList(truth, 0, SIZE, span);
    lie.digests[8] ^= 1; // its block 2
    const v = createBlockVote({ sources: 4, span });
    v.addList(0, spanDigestList(truth, 0, SIZE, span));
    v.addList(1, lie);
    v.addList(2, digestList(truth));
    assert.equal(v.size(), SIZE);
    assert.ok(v.decided(1), '3 of 4 on block 1');
    assert.ok(!v.decided(2), 'two against one on block 2: not yet');
    assert.ok(!v.decided(0) && !v.decided(3), 'blocks outside the range are not voted on');
    v.addList(3, spanDigestList(truth, 0, SIZE, span));
    assert.ok(v.decided(2));
    assert.deepEqual(codes(v), ['1:ERR_INTEGRITY']);
    assert.equal(v.offer(0, 2, block(truth, 2)), 'ok');
    assert.equal(v.offer(3, 1, block(other, 1)), 'bad', 'bytes against its own list');
    assert.equal(v.verified(), true);
  });

  it('served bytes vote for a source whose list has not come: 2 of 3 without the third list', () => {
    const v = createBlockVote({ sources: 3 });
    v.addList(0, digestList(truth));
    v.addList(1, digestList(truth));
    assert.equal(v.offer(2, 1, block(other, 1)), 'bad', 'outvoted');
    const w = createBlockVote({ sources: 3 });
    w.addList(0, digestList(truth));
    w.addList(1, digestList(other));
    w.addList(2, digestList(truth));
    assert.deepEqual(codes(w), ['1:ERR_INTEGRITY']);
  });
});
