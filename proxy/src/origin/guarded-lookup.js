import dns from 'node:dns';
import { codedError } from '@mutp/common/errors';
import { checkAddress } from '../ssrf/address-policy.js';

/**
 * A `lookup` for http.Agent that resolves a name and refuses it when ANY resolved address is
 * in a refused class. The socket connects only to addresses this function returned, so a DNS
 * answer that changes between check and connect (rebinding) cannot reach a private address.
 * @param {{ allowPrivate?: boolean }} policy
 * @param {typeof dns.lookup} [resolve] injectable for tests
 */
export function createGuardedLookup(policy, resolve = dns.lookup) {
  /**
   * @param {string} hostname
   * @param {any} options
   * @param {(err: Error | null, address?: any, family?: number) => void} callback
   */
  function guardedLookup(hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    const opts = typeof options === 'number' ? { family: options } : options ?? {};
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = /** @type {dns.LookupAddress[]} */ (/** @type {unknown} */ (addresses));
      if (list.length === 0) return callback(codedError('ENOTFOUND', `no address for ${hostname}`));
      for (const a of list) {
        const verdict = checkAddress(a.address, policy);
        if (!verdict.ok) {
          return callback(codedError('ERR_SSRF_BLOCKED', `${hostname} resolves to a refused address: ${verdict.reason}`));
        }
      }
      if (opts.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  }
  return guardedLookup;
}
