#!/usr/bin/env node
import * as protocol from '@mutp/protocol';
import { configFromCli, HELP } from '../src/config/cli-config.js';
import { FAULT_ENV, faultModeFor, faultyProtocol } from '../src/rtc/fault-protocol.js';
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
  const config = /** @type {any} */ (parsed).config;
  // TEST ONLY: a deliberately faulty proxy (integrity tests), named by id in the environment; never by a client
  const fault = faultModeFor(process.env[FAULT_ENV], config.id);
  if (fault) process.stderr.write(`mutp-proxy: TEST ONLY: proxy ${config.id} runs in fault mode ${fault}\n`);
  const proxy = await startProxy(config, fault ? { protocol: faultyProtocol(protocol, fault) } : {});
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
