// Starts a Node program on this machine (loopback: the cost bench's fleet) with its output in a
// log file, as spawn-in-ns.js does inside a namespace: each program is its own process, so its CPU
// can be read from /proc (proc-cpu.js).
import { codedError } from '@mutp/common/errors';
import { spawnLogged } from '../spawn-logged.js';

/**
 * @param {object} o
 * @param {string} o.script     path of the Node entry point
 * @param {string[]} [o.args]
 * @param {Record<string, string>} [o.env]
 * @param {string} o.logFile    stdout+stderr go here (stdout stays a pipe instead when pipeStdio)
 * @param {boolean} [o.pipeStdio]  keep stdin/stdout as pipes (the client agent's RPC)
 * @param {string[]} [o.nodeArgs]  Node's own options, before the script (e.g. --cpu-prof)
 */
export function spawnLocal({ script, args = [], env = {}, logFile, pipeStdio = false, nodeArgs = [] }) {
  return spawnLogged({ command: process.execPath, argv: [...nodeArgs, script, ...args], env, logFile, pipeStdio });
}

/**
 * Node's options that write a CPU profile of the process to `dir` when it exits (Chrome DevTools'
 * .cpuprofile), or none without a dir.
 * @param {string | undefined} dir
 */
export function cpuProfileArgs(dir) {
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/**
 * Resolves with the match of `pattern` in the child's stdout so far (e.g. the URL a server printed
 * once listening: end the pattern where the line goes on, a chunk may cut it); fails with
 * ERR_BENCH_FLEET, naming the log file, when the child exits first or `timeoutMs` passes.
 * @param {import('node:child_process').ChildProcess} child
 * @param {RegExp} pattern
 * @param {{what: string, logFile: string, timeoutMs: number}} o
 * @returns {Promise<RegExpExecArray>}
 */
export function waitForOutput(child, pattern, { what, logFile, timeoutMs }) {
  return new Promise((resolve, reject) => {
    let out = '';
    const finish = (/** @type {RegExpExecArray | null} */ m, /** @type {string} */ why) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (m) resolve(m);
      else reject(codedError('ERR_BENCH_FLEET', `${what} ${why}; see ${logFile}`));
    };
    const onData = (/** @type {Buffer} */ d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) finish(m, '');
    };
    const onExit = (/** @type {number | null} */ code, /** @type {string | null} */ signal) => finish(null, `exited (${signal ?? code}) before it was up`);
    const timer = setTimeout(() => finish(null, `was not up within ${timeoutMs} ms`), timeoutMs);
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}
