// Starts a Node program inside a network namespace and keeps its output in a log file.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/**
 * @param {object} o
 * @param {string} o.ns
 * @param {string} o.script     path of the Node entry point
 * @param {string[]} [o.args]
 * @param {Record<string, string>} [o.env]
 * @param {string} o.logFile    stdout+stderr go here (stdout is piped instead when pipeStdio)
 * @param {boolean} [o.pipeStdio]  keep stdin/stdout as pipes (the client agent's RPC)
 */
export function spawnInNs({ ns, script, args = [], env = {}, logFile, pipeStdio = false }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  // `ip netns exec` exec()s the program, so the child's pid is node's own (its CPU is readable).
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, script, ...args], {
    env: { ...process.env, ...env },
    stdio: pipeStdio ? ['pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  });
  if (!pipeStdio) child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  child.on('close', () => log.end());
  return child;
}
