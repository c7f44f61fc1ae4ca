#!/usr/bin/env node
// `mutp`: download through the proxy fleet from the terminal (see `mutp --help`).
import { main } from '../src/cli/main.js';

/**
 * Once the work is done (record printed, logs flushed or given up on), the process should end by
 * itself. If something still holds the event loop this long after (a peer connection that was
 * still being set up when the client closed, in a native thread), say what and exit anyway: a
 * one-shot command must not hang.
 */
const EXIT_GRACE_MS = 2000;

/** @param {number} code */
function finish(code) {
  process.exitCode = code;
  setTimeout(() => {
    const held = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
    process.stderr.write(`mutp: warning: still running ${EXIT_GRACE_MS} ms after the end (${held.join(', ') || 'nothing listed'}); exiting\n`);
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: () => process.stdin }).then(
  finish,
  (err) => { process.stderr.write(`mutp: internal error: ${err?.stack ?? err}\n`); finish(1); },
);
