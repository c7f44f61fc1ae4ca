#!/usr/bin/env node
// Writes the seed corpora in fuzz/corpus/<target>/ (committed; re-run after a wire change).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createReceiver, createSender, encodeMessage } from '@mutp/protocol';

const dir = (name) => { const u = new URL(`corpus/${name}/`, import.meta.url); mkdirSync(u, { recursive: true }); return u; };
const put = (name, file, data) => writeFileSync(new URL(file, dir(name)), data);
const json = (v) => JSON.stringify(v, null, 0);

// wire: one genuine message of each type, as a proxy and a client would send them
const data = new Uint8Array(40_000).map((_, i) => (i * 7) & 255);
for (const mode of /** @type {const} */ (['uncoded', 'coded'])) {
  const s = await createSender({ mode, data, sourceIndex: 0, sourceCount: 2, seed: 3, downloadId: 5 });
  const r = await createReceiver({ meta: s.meta(), sourceCount: 2, now: 0 });
  put('wire', `${mode}-meta.bin`, encodeMessage(s.meta()));
  let fb = null;
  for (let t = 1; t < 40 && !fb; t++) { const m = s.nextPacket(t); if (m) { if (t === 1) put('wire', `${mode}-packet.bin`, encodeMessage(m)); r.handlePacket(m, 0, t); } fb = r.pollFeedback(t); }
  if (fb) put('wire', `${mode}-feedback.bin`, encodeMessage(fb));
  put('wire', `${mode}-request.bin`, encodeMessage({ type: 'request', downloadId: 5, mode, method: 'GET', url: 'http://127.0.0.1:8000/media/demo-1MB.bin', sourceIndex: 0, sourceCount: 2,
    params: { scheduler: 'paper', payloadSize: 1100, window: 240, generationSize: 24, feedbackEvery: 8, surplus: 0 }, seed: 9, range: { start: 0, end: 99_999 } }));
  s.close?.();
}
put('wire', 'done.bin', encodeMessage({ type: 'done', downloadId: 5 }));
put('wire', 'error.bin', encodeMessage({ type: 'error', downloadId: 5, code: 'ERR_ORIGIN', message: 'origin said 404' }));

// signalling: POST /rtc/offer bodies (a real Chromium-like offer and some shapes)
const sdp = ['v=0', 'o=- 4611731400430051336 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=group:BUNDLE 0', 'a=msid-semantic: WMS',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'c=IN IP4 0.0.0.0', 'a=ice-ufrag:abcd', 'a=ice-pwd:abcdefghijklmnopqrstuvwx',
  'a=ice-options:trickle', 'a=fingerprint:sha-256 ' + Array.from({ length: 32 }, (_, i) => (i * 7 % 256).toString(16).padStart(2, '0').toUpperCase()).join(':'),
  'a=setup:actpass', 'a=mid:0', 'a=sctp-port:5000', 'a=max-message-size:262144', ''].join('\r\n');
// TICKET: the target substitutes a valid ticket
put('signalling', 'offer.json', json({ type: 'offer', sdp, ticket: 'TICKET' }));
put('signalling', 'offer-no-ticket.json', json({ type: 'offer', sdp }));
put('signalling', 'offer-forged-ticket.json', json({ type: 'offer', sdp, ticket: 't1.eyJjIjoiYyIsInAiOiJmdXp6LXByb3h5IiwiZSI6OTk5OTk5OTk5OTk5OX0.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }));
put('signalling', 'answer-type.json', json({ type: 'answer', sdp, ticket: 'TICKET' }));
put('signalling', 'empty.json', '{}');

// fetch: "query string\nRange header" pairs (the target splits on the first newline); TICKET: a valid ticket
put('fetch', 'plain.txt', 'url=ORIGIN/media/demo-64KB.bin&ticket=TICKET\n');
put('fetch', 'range.txt', 'url=ORIGIN/media/demo-64KB.bin&ticket=TICKET\nbytes=0-1023');
put('fetch', 'suffix.txt', 'url=ORIGIN/media/demo-64KB.bin&mode=range-http&downloadId=abc&sourceIndex=1&n=2&ticket=TICKET\nbytes=-500');
put('fetch', 'multi.txt', 'url=ORIGIN/media/demo-64KB.bin&ticket=TICKET\nbytes=0-1,5-9');
put('fetch', 'ssrf.txt', 'url=http://169.254.169.254/latest/meta-data/&ticket=TICKET\n');
put('fetch', 'encoded.txt', 'url=http%3A%2F%2F127.0.0.1%3A1%2F%2e%2e%2F&url=x&ticket=TICKET\nbytes=99999999999999999999-');
put('fetch', 'no-ticket.txt', 'url=ORIGIN/media/demo-64KB.bin\nbytes=0-1023');
put('fetch', 'two-tickets.txt', 'url=ORIGIN/media/demo-64KB.bin&ticket=TICKET&ticket=TICKET\n');

// api-logs: POST /api/logs bodies
const rec = { id: '7b0e3a52-1c1e-4a53-9d7e-6d2b6f0a1c11', clientId: 'c1', startedAt: '2026-11-21T10:00:00.000Z', mode: 'coded', n: 2,
  proxyIds: ['p1', 'p2'], url: 'http://127.0.0.1/x.bin', objectBytes: 1000, params: { window: 240, generationSize: 24, feedbackEvery: 8, payloadSize: 1100, surplus: 0 },
  grossBytes: 1100, netBytes: 1000, durationMs: 12.5, firstPacketMs: 1, serverFetchMs: 2, packets: 2, duplicates: 0, lossEstimate: 0,
  perProxy: [{ proxyId: 'p1', bytes: 600, packets: 1, duplicates: 0, uploadRateBps: null, error: null }, { proxyId: 'p2', bytes: 500, packets: 1, duplicates: 0, uploadRateBps: 917504, error: null }],
  packetLog: [[0.5, 0, 1, 1], [0.9, 1, 1, 2]], feedbackLog: [1], error: null };
put('api-logs', 'one.json', json([rec]));
put('api-logs', 'failed.json', json([{ ...rec, id: '7b0e3a52-1c1e-4a53-9d7e-6d2b6f0a1c12', netBytes: 0, error: { code: 'ERR_ALL_PROXIES_FAILED', message: 'x' } }]));
put('api-logs', 'empty.json', '[]');
put('api-logs', 'object.json', json({ records: [rec] }));
// the run posts each body to /api/logs or /api/logs/v2: a packet log in columns (v2)
const { packetLog: _, ...bare } = rec;
put('api-logs', 'columns.json', json([{ ...bare, id: '7b0e3a52-1c1e-4a53-9d7e-6d2b6f0a1c13', packetLogColumns: { dt: [50, 40], source: '01', useful: '11', ddof: [1, 1] } }]));

// socketio: {event, payload} the proxy sends on /proxy
const status = { proxyId: 'fuzz-proxy', publicUrl: 'http://127.0.0.1:9', location: { lat: 47.5, lon: 19.0 }, uploadRateBps: 917504, activeSessions: 1, bytesSent: 100, cpu: 0.1 };
const prec = { id: '1b0e3a52-1c1e-4a53-9d7e-6d2b6f0a1c11', proxyId: 'fuzz-proxy', downloadId: 'd1', startedAt: '2026-11-21T10:00:00.000Z', mode: 'coded', url: 'http://127.0.0.1/x.bin',
  objectBytes: 1000, sourceIndex: 0, n: 2, params: null, packetsSent: 3, bytesSent: 3300, durationMs: 5, serverFetchMs: 1, fromCache: false, error: null };
put('socketio', 'status.json', json({ event: 'status', payload: status }));
put('socketio', 'logs.json', json({ event: 'logs', payload: [prec] }));
put('socketio', 'logs-other-proxy.json', json({ event: 'logs', payload: [{ ...prec, id: '1b0e3a52-1c1e-4a53-9d7e-6d2b6f0a1c12', proxyId: 'someone-else' }] }));
put('socketio', 'logs-object.json', json({ event: 'logs', payload: { records: [prec] } }));

// extension: messages a page may post to the download frame
put('extension', 'get.json', json({ t: 'get', id: 1, url: 'https://video.example/v.mp4', range: { start: 0, end: 1023 } }));
put('extension', 'get-norange.json', json({ t: 'get', id: 2, url: 'http://127.0.0.1:8000/x', range: null }));
put('extension', 'abort.json', json({ t: 'abort', id: 1 }));
put('extension', 'fallback.json', json({ t: 'fallback', url: 'https://video.example/v.mp4', reason: 'timeout' }));
console.log('corpora written');
