// The fleet as the dashboard shows it: every proxy seen, connected or not, with its last status
// and its current upload rate (from the change in bytesSent between two status messages).
import { notOfferedReason } from '../registry/public-url-policy.js';

/**
 * @typedef {object} FleetEntry
 * @property {string} proxyId
 * @property {boolean} connected
 * @property {string | null} publicUrl
 * @property {{ lat: number, lon: number } | null} location
 * @property {number | null} uploadRateBps      configured (advertised) rate
 * @property {number | null} currentUploadBps   measured between the last two statuses
 * @property {number} activeSessions
 * @property {number} bytesSent
 * @property {number | null} cpu
 * @property {number | null} lastSeen           ms since epoch, last status or connect/disconnect
 * @property {string | null} notOffered         why Origo does not offer it to clients (its public URL), or null
 */

export class FleetView {
  /** @type {Map<string, FleetEntry>} */
  #entries = new Map();
  /** The previous status of the current connection, for the upload rate. @type {Map<string, { at: number, bytesSent: number }>} */
  #previous = new Map();
  /** @type {import('../registry/public-url-policy.js').UrlPolicy} */
  #policy;

  /** @param {import('../registry/public-url-policy.js').UrlPolicy} [policy]  the registry's, so both agree */
  constructor(policy = { allowPlainHttp: false }) {
    this.#policy = policy;
  }

  /** @param {string} proxyId */
  #entry(proxyId) {
    let e = this.#entries.get(proxyId);
    if (!e) {
      e = { proxyId, connected: false, publicUrl: null, location: null, uploadRateBps: null, currentUploadBps: null, activeSessions: 0, bytesSent: 0, cpu: null, lastSeen: null, notOffered: null };
      this.#entries.set(proxyId, e);
    }
    return e;
  }

  /** Seeds proxies known from the store (Origo restarted): shown as disconnected. @param {any[]} statuses */
  seed(statuses) {
    for (const s of statuses) {
      if (this.#entries.has(s.proxyId)) continue;
      Object.assign(this.#entry(s.proxyId), {
        publicUrl: s.publicUrl, location: s.location, uploadRateBps: s.uploadRateBps, activeSessions: 0, bytesSent: s.bytesSent, cpu: s.cpu, lastSeen: s.receivedAt,
        notOffered: notOfferedReason(s.publicUrl, this.#policy),
      });
    }
  }

  /** @param {string} proxyId @param {number} now @returns {FleetEntry} */
  connected(proxyId, now) {
    this.#previous.delete(proxyId);
    return Object.assign(this.#entry(proxyId), { connected: true, lastSeen: now, currentUploadBps: null });
  }

  /** @param {string} proxyId @param {number} now @returns {FleetEntry} */
  disconnected(proxyId, now) {
    this.#previous.delete(proxyId);
    return Object.assign(this.#entry(proxyId), { connected: false, lastSeen: now, activeSessions: 0, currentUploadBps: null });
  }

  /**
   * @param {import('../registry/proxy-registry.js').ProxyStatus} s  a validated status
   * @param {number} now
   * @returns {FleetEntry}
   */
  status(s, now) {
    const e = this.#entry(s.proxyId);
    const prev = this.#previous.get(s.proxyId);
    // bytesSent is a counter since the proxy started; a drop means it restarted, so no rate yet.
    e.currentUploadBps = prev && now > prev.at && s.bytesSent >= prev.bytesSent ? ((s.bytesSent - prev.bytesSent) * 1000) / (now - prev.at) : null;
    this.#previous.set(s.proxyId, { at: now, bytesSent: s.bytesSent });
    Object.assign(e, {
      connected: true, publicUrl: s.publicUrl, location: s.location, uploadRateBps: s.uploadRateBps,
      activeSessions: s.activeSessions, bytesSent: s.bytesSent, cpu: s.cpu, lastSeen: now,
      notOffered: notOfferedReason(s.publicUrl, this.#policy),
    });
    return e;
  }

  /** @returns {FleetEntry[]} sorted by id */
  all() {
    return [...this.#entries.values()].sort((a, b) => (a.proxyId < b.proxyId ? -1 : a.proxyId > b.proxyId ? 1 : 0)).map((e) => ({ ...e }));
  }
}
