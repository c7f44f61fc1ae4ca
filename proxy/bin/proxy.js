#!/usr/bin/env node
import { configFromCli, HELP } from '../src/config/cli-config.js';
import { startProxy } from '../index.js';

let parsed;
try {
  parsed = configFromCli(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`mutp-proxy: ${err.message}\n\n${HELP}`);
  process.exit(2);
}
if (parsed.help === true) {
  process.stdout.write(HELP);
  process.exit(0);
}

try {
  const proxy = await startProxy(/** @type {any} */ (parsed).config);
  process.stdout.write(`proxy ${proxy.id} listening on ${proxy.url}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await proxy.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  process.stderr.write(`mutp-proxy: ${err.code ?? 'ERR'}: ${err.message}\n`);
  process.exit(1);
}
