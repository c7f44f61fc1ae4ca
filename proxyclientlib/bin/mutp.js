#!/usr/bin/env node
// `mutp`: download through the proxy fleet from the terminal (see `mutp --help`).
import { main } from '../src/cli/main.js';

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`mutp: internal error: ${err?.stack ?? err}\n`); process.exitCode = 1; },
);
