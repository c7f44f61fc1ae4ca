import assert from 'node:assert/strict';
import { encodeMessage, normalizeParams } from '../index.js';
import { offerRequestField, parseOfferRequest, MAX_OFFER_REQUEST_CHARS } from '@mutp/protocol/offer-request';

const request = encodeMessage({
  type: 'request', downloadId: 7, url: 'https://cdn.example/seg-1.m4s', method: 'GET', range: null, mode: 'coded', sourceIndex: 2, sourceCount: 4,
  seed: 99, params: normalizeParams({}, 'coded'),
});

describe('protocol: the first request in a WebRTC offer', () => {
  it('carries a request datagram byte for byte', () => {
    const field = offerRequestField(request);
    assert.match(field, /^[A-Za-z0-9+/]+={0,2}$/);
    assert.deepEqual(parseOfferRequest(field), request);
  });

  it('refuses what is not one well-formed request in base64', () => {
    const done = encodeMessage({ type: 'done', downloadId: 7 });
    const cases = [
      ['a number', 42],
      ['empty', ''],
      ['not base64', 'not base64!'],
      ['another message', offerRequestField(done)],
      ['a truncated request', offerRequestField(request.subarray(0, 12))],
      ['too long', 'A'.repeat(MAX_OFFER_REQUEST_CHARS + 4)],
    ];
    for (const [what, field] of cases) assert.equal(parseOfferRequest(field), null, String(what));
  });
});
