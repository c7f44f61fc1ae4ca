// Which breakers a failed download opens: an origin's failure seen by enough proxies is the
// origin's, not the proxies'; one proxy's word alone is not believed.
import assert from 'node:assert/strict';
import { blameFailure } from '../src/frame/failure-blame.js';

/** @param {...(string | null)} codes one per proxy p1, p2, …; null: that proxy did not fail */
const per = (...codes) => codes.map((c, i) => ({ proxyId: `p${i + 1}`, error: c === null ? null : { code: c, message: 'x' } }));

describe('failure blame: which breakers a failed download opens', () => {
  it('an origin error every proxy reports (a 404) opens none: the page fetches that segment, the next goes through the fleet', () => {
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_STATUS', 'ERR_ORIGIN_STATUS'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: false });
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_TOO_LARGE', 'ERR_ORIGIN', 'ERR_ORIGIN_LENGTH'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: false });
  });

  it('an origin the proxies cannot reach opens the host\'s breaker, not theirs', () => {
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_TIMEOUT', 'ERR_ORIGIN_UNREACHABLE'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: true });
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_TIMEOUT'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: true }, 'the only proxy asked');
  });

  it('one proxy\'s origin error among other failures is its own: its breaker opens', () => {
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_STATUS', 'ERR_PROXY_CONNECTION_LOST'), 'ERR_ALL_PROXIES_FAILED'), { proxies: ['p1', 'p2'], host: false });
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_UNREACHABLE', 'ERR_RTC_TIMEOUT', null), 'ERR_ALL_PROXIES_FAILED'), { proxies: ['p1', 'p2'], host: false });
  });

  it('two proxies agreeing on the origin are believed, a third with its own failure is not spared', () => {
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_STATUS', 'ERR_ORIGIN_STATUS', 'ERR_PROXY_HTTP'), 'ERR_ALL_PROXIES_FAILED'), { proxies: ['p3'], host: false });
  });

  it('a host the proxies refuse or that encodes its bodies opens the host\'s breaker only', () => {
    assert.deepEqual(blameFailure(per('ERR_ORIGIN_ENCODED', 'ERR_ORIGIN_ENCODED'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: true });
    assert.deepEqual(blameFailure(per('ERR_HOST_NOT_ALLOWED'), 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: true });
    assert.deepEqual(blameFailure([], 'ERR_BAD_URL', 'bad url'), { proxies: [], host: true });
  });

  it('proxy failures open the proxies\' breakers; malformed entries are ignored', () => {
    assert.deepEqual(blameFailure(per('ERR_PROXY_HTTP', 'ERR_PROXY_CONNECTION_LOST'), 'ERR_ALL_PROXIES_FAILED'), { proxies: ['p1', 'p2'], host: false });
    assert.deepEqual(blameFailure([null, { proxyId: 7 }, { proxyId: 'p9', error: { code: 3 } }, ...per('ERR_PROXY_HTTP')], 'ERR_ALL_PROXIES_FAILED'), { proxies: ['p1'], host: false });
    assert.deepEqual(blameFailure(undefined, 'ERR_ALL_PROXIES_FAILED'), { proxies: [], host: false });
  });
});
