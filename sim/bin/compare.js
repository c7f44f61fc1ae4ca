#!/usr/bin/env node
// Simulator vs testbed: `npm run sim:compare -- docs/results/campaign-paper [--per-box 20] [--max-burst B] [--all] [--json]`
// prints "box, sim median, testbed median, ratio" for FIGURE 11's boxes (every box with --all).

import { parseArgs } from 'node:util';
import { compareCampaign, readCampaign, DEFAULT_PER_BOX, CAMPAIGN_OVERHEAD_BYTES } from '../src/compare.js';
import { SCTP_MAX_BURST_STOCK } from '../src/sctp.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'per-box': { type: 'string', default: String(DEFAULT_PER_BOX) },
    'max-burst': { type: 'string' }, // default: the campaign's (meta.json)
    'overhead-bytes': { type: 'string', default: String(CAMPAIGN_OVERHEAD_BYTES) },
    all: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 1) {
  process.stderr.write('usage: npm run sim:compare -- CAMPAIGN_DIR [--per-box N] [--max-burst B] [--overhead-bytes H] [--all] [--json]\n');
  process.exit(2);
}
const { records, delayMs, maxBurst } = readCampaign(positionals[0]);
const rows = await compareCampaign(records, {
  delayMs, perBox: Number(values['per-box']), overheadBytes: Number(values['overhead-bytes']),
  // the campaign's max burst; one that did not record its WebRTC build ran the stock one
  maxBurst: values['max-burst'] !== undefined ? Number(values['max-burst']) : maxBurst ?? SCTP_MAX_BURST_STOCK,
  filter: values.all ? () => true : undefined, onBox: (b) => process.stderr.write(`${b}\n`),
});
if (values.json) {
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
} else {
  const kib = (/** @type {number} */ v) => (v / 1024).toFixed(0);
  process.stdout.write('| box | sim median KiB/s | testbed median KiB/s | ratio |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.box} | ${kib(r.simGoodputBps)} | ${kib(r.testbedGoodputBps)} | ${r.ratio.toFixed(2)} |\n`);
}
