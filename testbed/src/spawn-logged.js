// Starts a program with its output in a log file: the testbed's processes (inside namespaces) and
// the cost bench's (on loopback) alike.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/**
 * @param {object} o
 * @param {string} o.command
 * @param {string[]} o.argv
 * @param {Record<string, string>} [o.env]  on top of this process's environment
 * @param {string} o.logFile    stdout+stderr go here (stdout stays a pipe instead when pipeStdio)
 * @param {boolean} [o.pipeStdio]  keep stdin/stdout as pipes (the client agent's RPC)
 */
export function spawnLogged({ command, argv, env = {}, logFile, pipeStdio = false }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, argv, {
    env: { ...process.env, ...env },
    stdio: pipeStdio ? ['pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  });
  if (!pipeStdio) child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  child.on('close', () => log.end());
  return child;
}
