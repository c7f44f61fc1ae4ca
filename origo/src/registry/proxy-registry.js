import { haversineKm } from '../geo/haversine.js';
import { PROXIMITY_RADIUS_KM } from '../limits.js';
import { notOfferedReason } from './public-url-policy.js';

/**
 * @typedef {{ lat: number, lon: number }} Location
 * @typedef {{ proxyId: string, publicUrl: string, location: Location | null, uploadRateBps: number | null,
 *             activeSessions: number, bytesSent: number, cpu: number | null }} ProxyStatus
 * @typedef {{ id: string, connectionId: string, remoteAddress: string, connectedAt: number,
 *             status: ProxyStatus | null, statusAt: number | null }} LiveProxy
 * @typedef {{ id: string, url: string, location: Location | null, uploadRateBps: number | null, activeSessions: number }} ListedProxy
 */

/**
 * The live (connected) proxies. A proxy is listed once it has sent a status with its public URL.
 */
export class ProxyRegistry {
  /** @type {Map<string, LiveProxy>} */
  #live = new Map();
  /** @type {import('./public-url-policy.js').UrlPolicy} */
  #policy;

  /** @param {import('./public-url-policy.js').UrlPolicy} [policy]  which public URLs may be offered */
  constructor(policy = { allowPlainHttp: false }) {
    this.#policy = policy;
  }

  /**
   * Registers a connection; a newer connection for the same id replaces the old one.
   * @param {string} id @param {string} connectionId @param {string} remoteAddress @param {number} now
   * @returns {LiveProxy | undefined} the replaced entry, if any
   */
  connect(id, connectionId, remoteAddress, now) {
    const previous = this.#live.get(id);
    this.#live.set(id, { id, connectionId, remoteAddress, connectedAt: now, status: null, statusAt: null });
    return previous;
  }

  /**
   * Forgets a connection, unless a newer one for the same id has replaced it.
   * @param {string} id @param {string} connectionId
   */
  disconnect(id, connectionId) {
    if (this.#live.get(id)?.connectionId === connectionId) this.#live.delete(id);
  }

  /** @param {string} id @param {string} connectionId @param {ProxyStatus} status @param {number} now */
  updateStatus(id, connectionId, status, now) {
    const entry = this.#live.get(id);
    if (!entry || entry.connectionId !== connectionId) return;
    entry.status = status;
    entry.statusAt = now;
  }

  /** @returns {LiveProxy[]} */
  all() {
    return [...this.#live.values()];
  }

  /** Live proxies Origo offers to clients: a status received, and a public URL clients can use. @returns {LiveProxy[]} */
  offered() {
    return this.all().filter((p) => p.status !== null && notOfferedReason(p.status.publicUrl, this.#policy) === null);
  }

  /**
   * The paper's selection: live proxies, only those within 3,000 km when the client's location is known
   * (a proxy without a known location cannot be shown to be near, so it is left out), a random subset of up to n.
   * @param {{ location?: Location | null, n?: number | null, random?: () => number }} query
   * @returns {ListedProxy[]}
   */
  pick({ location = null, n = null, random = Math.random }) {
    let candidates = this.offered();
    if (location) {
      candidates = candidates.filter((p) => p.status.location !== null && haversineKm(location, p.status.location) <= PROXIMITY_RADIUS_KM);
    }
    // Fisher–Yates: every subset equally likely, so load spreads over the fleet (paper III.C: random choice).
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
    }
    if (n !== null) candidates = candidates.slice(0, n);
    return candidates.map((p) => ({
      id: p.id,
      url: p.status.publicUrl,
      location: p.status.location,
      uploadRateBps: p.status.uploadRateBps,
      activeSessions: p.status.activeSessions,
    }));
  }
}
