#!/usr/bin/env node
// Simulator vs testbed: `npm run sim:compare -- docs/results/campaign-paper [--per-box 20] [--max-burst B]
//   [--connections recorded|new|kept] [--proxy-start recorded|zero] [--all] [--json]`
// prints "box, sim median, testbed median, ratio" for FIGURE 11's boxes (every box with --all).
// --connections: which MUTP downloads started on new WebRTC connections: as each record says
// (default: as many of its sources as it opened; a record that does not say counts as kept), or
// all of them new, or all kept.
// --sctp-sender: the proxies' SCTP sender (default: as the campaign's meta.json records its build;
// one that does not say ran the stock usrsctp sender).
// --proxy-start: when each proxy sent its first datagram after the request: as the proxies
// recorded it (default: proxyStartMs, the campaign's join of their records; 0 where none), or at once.

import { parseArgs } from 'node:util';
import { compareCampaign, readCampaign, DEFAULT_PER_BOX, CAMPAIGN_OVERHEAD_BYTES } from '../src/compare.js';
import { SCTP_MAX_BURST_STOCK, SCTP_SENDERS } from '../src/sctp.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'per-box': { type: 'string', default: String(DEFAULT_PER_BOX) },
    'max-burst': { type: 'string' }, // default: the campaign's (meta.json)
    'sctp-sender': { type: 'string' }, // default: the campaign's (meta.json)
    'overhead-bytes': { type: 'string', default: String(CAMPAIGN_OVERHEAD_BYTES) },
    connections: { type: 'string', default: 'recorded' },
    'proxy-start': { type: 'string', default: 'recorded' },
    all: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 1) {
  process.stderr.write('usage: npm run sim:compare -- CAMPAIGN_DIR [--per-box N] [--max-burst B] [--sctp-sender usrsctp|loss-tolerant] [--overhead-bytes H] [--connections recorded|new|kept] [--proxy-start recorded|zero] [--all] [--json]\n');
  process.exit(2);
}
if (!['recorded', 'new', 'kept'].includes(values.connections)) {
  process.stderr.write('sim:compare: --connections must be recorded, new or kept\n');
  process.exit(2);
}
if (values['sctp-sender'] !== undefined && !SCTP_SENDERS.includes(/** @type {any} */ (values['sctp-sender']))) {
  process.stderr.write(`sim:compare: --sctp-sender must be one of ${SCTP_SENDERS.join(', ')}\n`);
  process.exit(2);
}
if (!['recorded', 'zero'].includes(values['proxy-start'])) {
  process.stderr.write('sim:compare: --proxy-start must be recorded or zero\n');
  process.exit(2);
}
const { records, delayMs, maxBurst, newConnections, sctpSender, tcpCc } = readCampaign(positionals[0]);
const rows = await compareCampaign(records, {
  delayMs, perBox: Number(values['per-box']), overheadBytes: Number(values['overhead-bytes']),
  newConnections, connections: /** @type {'recorded' | 'new' | 'kept'} */ (values.connections),
  proxyStart: /** @type {'recorded' | 'zero'} */ (values['proxy-start']),
  // the campaign's max burst; one that did not record its WebRTC build ran the stock one
  maxBurst: values['max-burst'] !== undefined ? Number(values['max-burst']) : maxBurst ?? SCTP_MAX_BURST_STOCK,
  sctpSender: /** @type {import('../src/sctp.js').SctpSender} */ (values['sctp-sender'] ?? sctpSender), tcpCc,
  filter: values.all ? () => true : undefined, onBox: (b) => process.stderr.write(`${b}\n`),
});
if (values.json) {
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
} else {
  const kib = (/** @type {number} */ v) => (v / 1024).toFixed(0);
  process.stdout.write('| box | sim median KiB/s | testbed median KiB/s | ratio |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.box} | ${kib(r.simGoodputBps)} | ${kib(r.testbedGoodputBps)} | ${r.ratio.toFixed(2)} |\n`);
}
