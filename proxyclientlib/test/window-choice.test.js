import assert from 'node:assert/strict';
import { downloadWindow, UNADVERTISED_UPLOAD_RATE_BPS } from '../src/mutp/window-choice.js';

const six = new Array(6).fill(0).map((_, i) => ({ id: `p${i}`, url: `https://p${i}`, uploadRateBps: 896 * 1024 }));

describe('ProxyClientLib: the MUTP window of a download', () => {
  it('comes from the proxies\' upload rates when the caller gives none', () => {
    assert.equal(downloadWindow('coded', six, {}), 1224);
    assert.equal(downloadWindow('coded', six.slice(0, 4), {}), 816);
    assert.equal(downloadWindow('coded', six, { generationSize: 16 }), 1216);
  });

  it('an explicit window always wins (the paper\'s fixed w)', () => {
    assert.equal(downloadWindow('coded', six, { window: 240 }), 240);
    assert.equal(downloadWindow('uncoded', six, { window: 480 }), 480);
  });

  it('presumes UNADVERTISED_UPLOAD_RATE_BPS for a proxy that advertises no rate (an unshaped fleet is not held to the paper\'s 240)', () => {
    const unshaped = (/** @type {number} */ i) => ({ id: `u${i}`, url: `https://u${i}` });
    assert.equal(UNADVERTISED_UPLOAD_RATE_BPS, 2_000_000);
    // 4 × 2 MB/s × 50 ms × 5 / 1140-byte coded datagrams = 1754, in whole generations of 24
    assert.equal(downloadWindow('coded', [1, 2, 3, 4].map(unshaped), {}), 1776);
    assert.equal(downloadWindow('uncoded', [1, 2, 3, 4].map(unshaped), {}), 1796);
    assert.equal(downloadWindow('coded', [unshaped(1)], {}), 456);
    // only the unknown one is presumed: 3 × 896 KiB/s + 2 MB/s
    assert.equal(downloadWindow('coded', [...six.slice(0, 3), { ...unshaped(1), uploadRateBps: null }], {}), 1056);
    assert.equal(downloadWindow('coded', [...six.slice(0, 3), { ...unshaped(1), uploadRateBps: -5 }], {}), 1056);
  });

  it('is the protocol default (undefined) with no proxies or bad params', () => {
    assert.equal(downloadWindow('coded', [], {}), undefined);
    assert.equal(downloadWindow('coded', six, { generationSize: 0 }), undefined);
  });
});
