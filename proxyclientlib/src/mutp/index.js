// Uncoded and Coded MUTP over WebRTC data channels (ProxyClientLib's two MUTP modes).
export { downloadMutp } from './download-mutp.js';
export { downloadWindow } from './window-choice.js';
export { connectPeer } from '../rtc/connect-peer.js';
// the codec a coded download's controller loads (once per process): a caller may start it early
export { loadCodec } from '@mutp/protocol';
