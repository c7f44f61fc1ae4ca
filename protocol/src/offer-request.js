// A new connection's first MUTP request, carried in its WebRTC offer (`request`, base64): the
// proxy feeds it to its end of the pre-agreed channel as soon as that opens, so its first packets
// leave with the SCTP handshake's last flight instead of a round trip after the client's channel
// opened. The proxy's answer says `requestTaken`; the client then sends it on the channel only as
// a re-send (no meta in time), and to a proxy that ignored the field as before (docs/protocol.md).
import { base64Chars, base64Of, bytesOfBase64 } from '@mutp/common/base64';
import { decodeMessage } from './wire.js';
import { MAX_DATAGRAM_BYTES } from './constants.js';

/** Longest `request` field (characters): base64 of the largest datagram. */
export const MAX_OFFER_REQUEST_CHARS = base64Chars(MAX_DATAGRAM_BYTES);

/** The offer's `request` field for a request datagram. @param {Uint8Array} bytes @returns {string} */
export const offerRequestField = base64Of;

/**
 * The request datagram an offer's `request` field carries; null when it is not a string of
 * base64, is longer than MAX_OFFER_REQUEST_CHARS, or is not one well-formed request message.
 * @param {unknown} field
 * @returns {Uint8Array | null}
 */
export function parseOfferRequest(field) {
  const bytes = bytesOfBase64(field, MAX_OFFER_REQUEST_CHARS);
  if (!bytes) return null;
  const r = decodeMessage(bytes);
  return r.ok && r.msg.type === 'request' ? bytes : null;
}
