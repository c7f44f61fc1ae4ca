#!/usr/bin/env node
// The Origo CLI: `origo --help`.
import { proxyToken, startOrigo } from '../index.js';
import { USAGE, parseCli } from '../src/cli-config.js';
import { createLogger } from '@mutp/common/logger';

/** Exit status for a usage/config error (as most CLIs). */
const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

let cli;
try {
  cli = parseCli(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`origo: ${err.message} [${err.code}]\nTry 'origo --help'.\n`);
  process.exit(EXIT_USAGE);
}

if (cli.command === 'help') {
  process.stdout.write(`${USAGE}\n`);
} else if (cli.command === 'token') {
  process.stdout.write(`${proxyToken(cli.proxySecret, cli.proxyId)}\n`);
} else {
  const logger = createLogger({ name: 'origo' });
  // Handlers go in before the (slow) start, so Ctrl-C during start-up still closes the database cleanly.
  const started = startOrigo({ ...cli.config, logger });
  let stopping = false;
  const stop = async (/** @type {string} */ signal) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    try {
      const origo = await started;
      await origo.close();
      process.exit(0);
    } catch (err) {
      logger.error('unclean stop', { message: err.message });
      process.exit(EXIT_FAILURE);
    }
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    const origo = await started;
    process.stdout.write(`origo listening on ${origo.url} (db ${cli.config.db})\n`);
    if (origo.adminUrl) process.stdout.write(`admin dashboard on ${origo.adminUrl}\n`);
  } catch (err) {
    process.stderr.write(`origo: ${err.message} [${err.code ?? 'ERR_START'}]\n`);
    process.exit(EXIT_FAILURE);
  }
}
