// CodedSender.owed(k, j) ('share' scheduler): a source's debt to generation k after the others'
// excess is charged, smallest quota first, ties by position in k's rotation. Checked against a
// plain statement of that rule on random quotas and contributions.
import assert from 'node:assert/strict';
import { createSender } from '../index.js';

/**
 * The rule, written for clarity, not speed.
 * @param {number[]} q quotas @param {number[]} c contributions @param {number} k @param {number} me
 */
function owedByRule(q, c, k, me) {
  const n = q.length;
  let excess = 0;
  for (let j = 0; j < n; j++) excess += Math.max(0, c[j] - q[j]);
  const mine = Math.max(0, q[me] - c[me]);
  const rank = (/** @type {number} */ j) => q[j] * n + ((j - (k % n) + n) % n);
  for (let j = 0; j < n; j++) {
    if (j !== me && rank(j) < rank(me)) excess -= Math.min(excess, Math.max(0, q[j] - c[j]));
  }
  return Math.max(0, mine - excess);
}

/** @param {number} seed */
function lcg(seed) {
  let x = seed >>> 0;
  return (/** @type {number} */ m) => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x % m; };
}

describe('coded sender owed() (share scheduler)', () => {
  for (const n of [2, 3, 4, 6]) it(`N=${n}: matches the rule on random quotas and contributions`, async () => {
    const data = new Uint8Array(24 * 1100 * 12);
    const s = /** @type {any} */ (await createSender({ mode: 'coded', data, sourceIndex: 0, sourceCount: n, seed: 1, params: { window: 240 } }));
    const wg = s.layout.windowGenerations;
    const rnd = lcg(n * 977);
    let charged = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const k = rnd(s.layout.generationCount);
      const row = (k % wg) * n;
      const q = [];
      const c = [];
      for (let j = 0; j < n; j++) {
        q.push(rnd(4) === 0 ? rnd(3) : rnd(13)); // equal quotas often: the tie-break matters
        c.push(rnd(3) === 0 ? q[j] + rnd(6) : rnd(q[j] + 1));
        s.quotas[row + j] = q[j];
        s.contrib[row + j] = c[j];
      }
      for (let me = 0; me < n; me++) {
        const want = owedByRule(q, c, k, me);
        if (want < Math.max(0, q[me] - c[me])) charged++;
        assert.equal(s.owed(k, me), want, `k=${k} me=${me} q=${q} c=${c}`);
      }
    }
    assert.ok(charged > 100, `the excess was charged to a debtor only ${charged} times: the test misses the rule`);
    s.close();
  });
});
