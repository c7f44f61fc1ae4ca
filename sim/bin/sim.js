#!/usr/bin/env node
// CLI of the discrete-event simulator: `npm run sim -- --help`.

import { parseCli, USAGE } from '../src/cli-options.js';
import { expandSweep, toSimConfig } from '../src/sweep.js';
import { simulateConfig } from '../src/simulate.js';
import { benchConfig } from '../src/bench.js';
import { csvHeader, csvRow, jsonLine, tableRow } from '../src/output.js';

/** Exit status for bad flags or values (as many CLIs use for usage errors). */
const EXIT_BAD_INPUT = 2;

async function main() {
  let cli;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (e) {
    if (e.code !== 'ERR_SIM_BAD_INPUT') throw e;
    process.stderr.write(`sim: ${e.message}\nTry 'npm run sim -- --help'.\n`);
    return EXIT_BAD_INPUT;
  }
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const sets = expandSweep(cli.base, cli.sweep);
  const configs = sets.map(toSimConfig);

  if (cli.bench) {
    for (const c of configs) {
      const r = await benchConfig(c);
      if (cli.format === 'json') process.stdout.write(`${JSON.stringify(r)}\n`);
      else process.stdout.write(`${r.mode.padEnd(13)} N=${r.n} ${(r.sizeBytes / 1e6).toFixed(2)} MB: ${r.downloadsPerSecond.toFixed(1)} simulated downloads/s (${r.runs} runs in ${(r.wallMs / 1000).toFixed(1)} s; ${r.downloadsPerCpuSecond.toFixed(1)} per CPU second)\n`);
    }
    return 0;
  }

  // A progress bar on stderr when it is a terminal and there is more than one configuration.
  let bar = null;
  if (process.stderr.isTTY && configs.length > 1) {
    const { default: cliProgress } = await import('cli-progress');
    bar = new cliProgress.SingleBar({ stream: process.stderr, format: 'sim [{bar}] {value}/{total} runs | {config}' }, cliProgress.Presets.shades_classic);
    bar.start(configs.reduce((a, c) => a + c.seeds, 0), 0, { config: '' });
  }
  if (cli.format === 'csv') process.stdout.write(`${csvHeader()}\n`);
  let failed = 0;
  for (const c of configs) {
    const label = `${c.mode} n=${c.rates.length}`;
    const summary = await simulateConfig(c, { onRun: () => bar?.increment(1, { config: label }) });
    failed += summary.failed;
    const line = cli.format === 'json' ? jsonLine(summary) : cli.format === 'csv' ? csvRow(summary) : tableRow(summary);
    if (bar) bar.stop();
    process.stdout.write(`${line}\n`);
    if (bar) bar.start(bar.getTotal(), bar.getProgress() * bar.getTotal(), { config: label });
  }
  bar?.stop();
  if (failed > 0) process.stderr.write(`sim: ${failed} run(s) stalled or were not byte-exact\n`);
  return failed > 0 ? 1 : 0;
}

main().then((code) => {
  process.exitCode = code;
}, (e) => {
  process.stderr.write(`sim: ${e.code ? `${e.code}: ` : ''}${e.message}\n`);
  process.exitCode = e.code === 'ERR_SIM_BAD_INPUT' || e.code === 'ERR_BAD_PARAMS' || e.code === 'ERR_PARAMS_DO_NOT_FIT' ? EXIT_BAD_INPUT : 1;
});
