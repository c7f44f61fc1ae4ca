// A two-host test network: namespaces A and B joined by a veth pair on a private /24 that
// exists only inside this sandbox. Torn down by destroy(), and a stale one is removed first.
import { execFileSync, spawn } from 'node:child_process';

/** @param {string[]} args */
export function sh(...args) {
  return execFileSync(args[0], args.slice(1), { encoding: 'utf8' });
}

/**
 * @param {string} tag  short unique tag (≤ 6 chars) for names
 */
export function createPair(tag) {
  const a = `mutp-${tag}-a`;
  const b = `mutp-${tag}-b`;
  const devA = `v${tag}a`;
  const devB = `v${tag}b`;
  const net = { a, b, devA, devB, ipA: '10.213.7.1', ipB: '10.213.7.2' };
  destroyPair(net);
  sh('ip', 'netns', 'add', a);
  sh('ip', 'netns', 'add', b);
  sh('ip', 'link', 'add', devA, 'netns', a, 'type', 'veth', 'peer', 'name', devB, 'netns', b);
  for (const [ns, dev, ip] of [[a, devA, net.ipA], [b, devB, net.ipB]]) {
    sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${ip}/24`, 'dev', dev);
    sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', dev, 'up');
    sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  }
  return net;
}

/** @param {{a: string, b: string}} net */
export function destroyPair(net) {
  for (const ns of [net.a, net.b]) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      /* not there */
    }
  }
}

/**
 * Run a Node script inside a namespace; resolves with its stdout.
 * @param {string} ns
 * @param {string} script
 * @param {string[]} args
 */
export function nodeIn(ns, script, args = []) {
  return new Promise((resolve, reject) => {
    const p = spawn('ip', ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', script, ...args]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}
