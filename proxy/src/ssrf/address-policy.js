import ipaddr from 'ipaddr.js';

// Cloud metadata endpoints: never fetched, not even with allowPrivate (they hand out credentials).
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

// Address classes (ipaddr.js range names) that a test may open with allowPrivate:
// the machine's own and its LAN's addresses.
const PRIVATE_RANGES = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

// The only range that is always fine; everything else (multicast, unspecified, broadcast,
// reserved, documentation, 6to4/teredo tunnels carrying an arbitrary IPv4…) is refused.
const PUBLIC_RANGE = 'unicast';

/**
 * An IP literal's canonical form and ipaddr.js range; IPv4-mapped IPv6 (::ffff:127.0.0.1) is the
 * IPv4 address it carries. Null when it is not an IP address.
 * @param {string} address an IP literal (no brackets)
 * @returns {{ canonical: string, range: string } | null}
 */
function classify(address) {
  if (!ipaddr.isValid(address)) return null;
  let addr = ipaddr.parse(address);
  if (addr.kind() === 'ipv6' && /** @type {ipaddr.IPv6} */ (addr).isIPv4MappedAddress()) {
    addr = /** @type {ipaddr.IPv6} */ (addr).toIPv4Address();
  }
  const normal = addr.toNormalizedString();
  return { canonical: addr.kind() === 'ipv6' ? ipaddr.IPv6.parse(normal).toString() : normal, range: addr.range() };
}

/**
 * Decides whether the proxy may connect to one IP address.
 * @param {string} address an IP literal (no brackets)
 * @param {{ allowPrivate?: boolean }} [opts]
 * @returns {{ ok: boolean, reason?: string }} reason is set when refused
 */
export function checkAddress(address, opts = {}) {
  const c = classify(address);
  if (!c) return { ok: false, reason: `not an IP address: ${address}` };
  if (METADATA_ADDRESSES.has(c.canonical)) return { ok: false, reason: `metadata address ${c.canonical}` };
  if (c.range === PUBLIC_RANGE) return { ok: true };
  if (opts.allowPrivate && PRIVATE_RANGES.has(c.range)) return { ok: true };
  return { ok: false, reason: `${c.range} address ${c.canonical}` };
}

/**
 * Whether an IP literal is the machine's own or its LAN's (the ranges allowPrivate opens).
 * @param {string} address an IP literal (no brackets)
 */
export function isPrivateAddress(address) {
  const c = classify(address);
  return c !== null && PRIVATE_RANGES.has(c.range);
}

/**
 * The IP address a URL hostname names, or null for a DNS name. Accepts IPv6 in brackets and
 * the old IPv4 spellings (2130706433, 0x7f.1, 0177.0.0.1) so none of them slips past as a "name".
 * @param {string} host
 * @returns {string | null}
 */
export function ipLiteralOf(host) {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : null;
}
