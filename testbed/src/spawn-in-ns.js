// Starts a Node program inside a network namespace and keeps its output in a log file.
import { spawnLogged } from './spawn-logged.js';

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
  // `ip netns exec` exec()s the program, so the child's pid is node's own (its CPU is readable).
  return spawnLogged({ command: 'ip', argv: ['netns', 'exec', ns, process.execPath, script, ...args], env, logFile, pipeStdio });
}
