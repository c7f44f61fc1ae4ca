#!/usr/bin/env node
// `npm run fuzz -- [--iterations N] [--target NAME] [--seed S]`: runs the fuzz targets longer than
// `npm test` does and prints one line per target; exit 1 when any input crashed, hung or failed a check.
import { parseArgs } from 'node:util';
import { runTarget } from './lib/harness.js';
import { TARGETS } from './targets/index.js';

const { values } = parseArgs({ options: { iterations: { type: 'string' }, target: { type: 'string' }, seed: { type: 'string', default: '1' }, help: { type: 'boolean' } } });
if (values.help) {
  process.stdout.write(`usage: npm run fuzz -- [--iterations N] [--target ${TARGETS.map((t) => t.name).join('|')}] [--seed S]\n`);
  process.exit(0);
}
const chosen = values.target ? TARGETS.filter((t) => t.name === values.target) : TARGETS;
if (chosen.length === 0) {
  process.stderr.write(`unknown target ${values.target}; one of ${TARGETS.map((t) => t.name).join(', ')}\n`);
  process.exit(2);
}
let bad = 0;
for (const target of chosen) {
  const iterations = values.iterations ? Number(values.iterations) : target.ciIterations * 10;
  const tty = process.stdout.isTTY;
  const r = await runTarget(target, { iterations, seed: Number(values.seed), onProgress: tty ? (i) => { if (i % 100 === 0) process.stdout.write(`\r${target.name}: ${i}/${iterations}`); } : undefined });
  if (tty) process.stdout.write('\r\x1b[K');
  process.stdout.write(`${r.target.padEnd(11)} ${String(r.iterations).padStart(7)} inputs in ${(r.ms / 1000).toFixed(1)} s  RSS ${r.rssBeforeMB.toFixed(0)} -> ${r.rssAfterMB.toFixed(0)} MB (${r.rssGrowthMB >= 0 ? '+' : ''}${r.rssGrowthMB.toFixed(1)})  failures ${r.failures.length}\n`);
  for (const f of r.failures) process.stdout.write(`  #${f.iteration} ${f.code}: ${f.message}\n    input (base64): ${f.input}\n`);
  bad += r.failures.length;
}
process.exit(bad ? 1 : 0);
