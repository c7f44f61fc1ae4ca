// The testbed's network: one namespace per process (Origo, origin, client, each proxy), each
// with one veth "eth0" plugged into a bridge that lives in its own hub namespace. The host's
// own network namespace is never touched, and the /24 exists only inside these namespaces.
import { execFileSync } from 'node:child_process';
import { codedError } from '@mutp/common/errors';

export const NS_PREFIX = 'mtb-'; // every namespace we create starts with this: a stale run is found by it
const HOST_OCTETS = /** @type {const} */ ({ origo: 2, origin: 3, client: 4, cross: 5, firstProxy: 11 }); // fixed, readable addresses
const MAX_TAG_CHARS = 8; // namespace names stay short and greppable
const KILL_GRACE_MS = 1500; // SIGTERM first: Origo flushes DuckDB, proxies drain their logs

/**
 * @typedef {{name: string, ns: string, ip: string, hubDev: string}} NodeNet
 * @typedef {{tag: string, subnet: string, hub: string, origo: NodeNet, origin: NodeNet, client: NodeNet, proxies: NodeNet[], cross: NodeNet | null}} Topology
 */

/**
 * @param {{tag: string, subnet: string, proxyCount: number, cross?: boolean}} o  subnet: first three octets of a private /24, e.g. "10.219.0";
 *   cross: a host of its own for cross traffic towards the client
 * @returns {Topology}
 */
export function planTopology({ tag, subnet, proxyCount, cross = false }) {
  if (!/^[a-z0-9]{1,8}$/.test(tag)) throw codedError('ERR_BAD_OPTION', `tag must be 1..${MAX_TAG_CHARS} of [a-z0-9]`);
  const m = /^(10|192\.168|172\.(?:1[6-9]|2\d|3[01]))\.(\d{1,3})(?:\.(\d{1,3}))?$/.exec(subnet);
  const octets = subnet.split('.').map(Number);
  if (!m || octets.length !== 3 || octets.some((o) => !(o >= 0 && o <= 255))) {
    throw codedError('ERR_BAD_OPTION', `subnet must be the first three octets of a private /24, e.g. 10.219.0 (got ${subnet})`);
  }
  if (HOST_OCTETS.firstProxy + proxyCount > 254) throw codedError('ERR_BAD_OPTION', 'too many proxies for one /24');
  const node = (/** @type {string} */ name, /** @type {number} */ octet) => ({ name, ns: `${NS_PREFIX}${tag}-${name}`, ip: `${subnet}.${octet}`, hubDev: `v-${name}` });
  return {
    tag,
    subnet,
    hub: `${NS_PREFIX}${tag}-hub`,
    origo: node('origo', HOST_OCTETS.origo),
    origin: node('origin', HOST_OCTETS.origin),
    client: node('client', HOST_OCTETS.client),
    proxies: Array.from({ length: proxyCount }, (_, i) => node(`p${i + 1}`, HOST_OCTETS.firstProxy + i)),
    cross: cross ? node('cross', HOST_OCTETS.cross) : null,
  };
}

/** @param {Topology} t @returns {NodeNet[]} */
export const allNodes = (t) => [t.origo, t.origin, t.client, ...t.proxies, ...(t.cross ? [t.cross] : [])];

/** @param {string[]} args */
function ip(...args) {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Builds the namespaces, bridge and veths. Removes a stale testbed with the same tag first.
 * On any failure it removes what it made and rethrows.
 * @param {Topology} t
 */
export function createTopology(t) {
  destroyTag(t.tag);
  try {
    ip('netns', 'add', t.hub);
    ip('-n', t.hub, 'link', 'add', 'br0', 'type', 'bridge');
    ip('-n', t.hub, 'link', 'set', 'br0', 'up');
    ip('-n', t.hub, 'link', 'set', 'lo', 'up');
    for (const n of allNodes(t)) {
      ip('netns', 'add', n.ns);
      ip('link', 'add', 'eth0', 'netns', n.ns, 'type', 'veth', 'peer', 'name', n.hubDev, 'netns', t.hub);
      ip('-n', t.hub, 'link', 'set', n.hubDev, 'master', 'br0');
      ip('-n', t.hub, 'link', 'set', n.hubDev, 'up');
      ip('-n', n.ns, 'addr', 'add', `${n.ip}/24`, 'dev', 'eth0');
      ip('-n', n.ns, 'link', 'set', 'eth0', 'up');
      ip('-n', n.ns, 'link', 'set', 'lo', 'up');
    }
  } catch (err) {
    destroyTag(t.tag);
    throw codedError('ERR_TOPOLOGY', `could not build the testbed network: ${String(err?.stderr || err?.message).trim()}`, { cause: err });
  }
}

/** Names of our namespaces (all, or those of one tag). @param {string} [tag] */
export function listNamespaces(tag) {
  let out = '';
  try {
    out = ip('netns', 'list');
  } catch {
    return [];
  }
  const prefix = tag ? `${NS_PREFIX}${tag}-` : NS_PREFIX;
  return out.split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(prefix));
}

/**
 * Kills every process still running in a testbed's namespaces (SIGTERM, then SIGKILL) and
 * deletes the namespaces. Synchronous, so it also works from an 'exit' handler.
 * @param {string} tag
 */
export function destroyTag(tag) {
  const namespaces = listNamespaces(tag);
  const pidsOf = (/** @type {string} */ ns) => {
    try {
      return ip('netns', 'pids', ns).split('\n').map(Number).filter((p) => p > 0 && p !== process.pid);
    } catch {
      return [];
    }
  };
  const signalAll = (/** @type {NodeJS.Signals} */ sig) => {
    let any = false;
    for (const ns of namespaces) {
      for (const pid of pidsOf(ns)) {
        try {
          process.kill(pid, sig);
          any = true;
        } catch {
          /* already gone */
        }
      }
    }
    return any;
  };
  if (signalAll('SIGTERM')) {
    const deadline = Date.now() + KILL_GRACE_MS;
    while (Date.now() < deadline && namespaces.some((ns) => pidsOf(ns).length > 0)) sleepSync(50);
    signalAll('SIGKILL');
  }
  for (const ns of namespaces) {
    try {
      ip('netns', 'del', ns);
    } catch {
      /* gone already */
    }
  }
}

/** @param {number} ms */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
