// The parent's side of the client agent's JSON-lines RPC (client-agent.js): one call per request,
// answered by seq; every pending call fails when the agent exits.
import { createInterface } from 'node:readline';
import { codedError } from '@mutp/common/errors';

/**
 * @param {import('node:child_process').ChildProcess} child  the agent, spawned with piped stdin/stdout
 * @param {{logName?: string}} [o]  where its stderr goes, named in the error when it exits
 */
export function createAgentRpc(child, { logName = 'client.log' } = {}) {
  let seq = 0;
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
  const pending = new Map();
  createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // not an RPC line
    }
    const p = pending.get(msg.seq);
    if (!p) return;
    pending.delete(msg.seq);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(codedError(msg.error?.code, msg.error?.message ?? 'agent error'));
  });
  /** @type {string | null} */
  let exited = null;
  child.on('close', (code) => {
    exited = `client agent exited (${code}); see ${logName}`;
    for (const p of pending.values()) p.reject(codedError('ERR_AGENT_EXITED', exited));
    pending.clear();
  });
  // a write to an agent that just died (EPIPE): 'close' follows and fails what is pending
  child.stdin?.on('error', () => {});
  return {
    /** @param {object} req @returns {Promise<any>} */
    call(req) {
      if (exited !== null) return Promise.reject(codedError('ERR_AGENT_EXITED', exited));
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.stdin?.write(`${JSON.stringify({ seq: id, ...req })}\n`);
      });
    },
  };
}
