import assert from 'node:assert/strict';
import { downloadWindow } from '../src/mutp/window-choice.js';

const six = new Array(6).fill(0).map((_, i) => ({ id: `p${i}`, url: `https://p${i}`, uploadRateBps: 896 * 1024 }));

describe('ProxyClientLib: the MUTP window of a download', () => {
  it('comes from the proxies\' upload rates when the caller gives none', () => {
    assert.equal(downloadWindow('coded', six, {}), 744);
    assert.equal(downloadWindow('coded', six.slice(0, 4), {}), 504);
    assert.equal(downloadWindow('coded', six, { generationSize: 16 }), 736);
  });

  it('an explicit window always wins (the paper\'s fixed w)', () => {
    assert.equal(downloadWindow('coded', six, { window: 240 }), 240);
    assert.equal(downloadWindow('uncoded', six, { window: 480 }), 480);
  });

  it('is the protocol default (undefined) when a rate is unknown or the params are bad', () => {
    assert.equal(downloadWindow('coded', [...six.slice(0, 3), { id: 'x', url: 'https://x', uploadRateBps: null }], {}), undefined);
    assert.equal(downloadWindow('coded', [{ id: 'x', url: 'https://x' }], {}), undefined);
    assert.equal(downloadWindow('coded', [], {}), undefined);
    assert.equal(downloadWindow('coded', six, { generationSize: 0 }), undefined);
  });
});
