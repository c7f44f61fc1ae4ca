// TEST ONLY: a deliberately faulty proxy, for the client's integrity checks. A wrapper around the
// protocol a MUTP session encodes with; only the proxy's command-line entry point installs it
// (proxy/bin/proxy.js, from MUTP_TEST_ONLY_FAULTS), tests pass it as the session's protocol. The
// production send path knows nothing about it. Never set by a client.
// - corrupt-coded-1pct: flips a byte in 1 of every FAULT_CORRUPT_EVERY data-carrying packets (coded or uncoded)
// - lying-meta: flips a byte of every FAULT_LIE_EVERY-th checksum entry in its meta

export const FAULT_MODES = Object.freeze(['corrupt-coded-1pct', 'lying-meta']);
/** corrupt-coded-1pct: 1 in 100 packets = 1%; the first at a download's packet FAULT_CORRUPT_FIRST (0-based) so small test objects are hit too. */
const FAULT_CORRUPT_EVERY = 100;
const FAULT_CORRUPT_FIRST = 3;
/** lying-meta: every third checksum entry is wrong (unit 0 included, so the lie shows early). */
const FAULT_LIE_EVERY = 3;
/** Downloads whose packet counts are kept (a proxy serves at most a few dozen at once); the oldest is forgotten. */
const MAX_COUNTED_DOWNLOADS = 1024;
/** Env var holding the test-only fault modes, per proxy id: "<proxyId>=<mode>,…". */
export const FAULT_ENV = 'MUTP_TEST_ONLY_FAULTS';

/**
 * The fault mode named for this proxy in the env var's value, or null.
 * @param {string | undefined} value  e.g. "p0=corrupt-coded-1pct,p2=lying-meta"
 * @param {string} proxyId
 * @returns {string | null}  throws ERR_BAD_CONFIG for a mode that does not exist
 */
export function faultModeFor(value, proxyId) {
  let mode = null;
  for (const part of (value ?? '').split(',')) {
    const [id, m] = part.split('=');
    if (id === proxyId) mode = m ?? '';
  }
  if (mode !== null && !FAULT_MODES.includes(mode)) {
    throw Object.assign(new Error(`${FAULT_ENV}: fault mode must be one of ${FAULT_MODES.join(', ')}, not "${mode}" (test only)`), { code: 'ERR_BAD_CONFIG' });
  }
  return mode;
}

/**
 * The protocol with this fault; packets are counted per download (downloadId), across sessions.
 * @param {import('./mutp-session.js').ProtocolApi} protocol @param {string} mode  one of FAULT_MODES
 * @returns {import('./mutp-session.js').ProtocolApi}
 */
export function faultyProtocol(protocol, mode) {
  if (!FAULT_MODES.includes(mode)) throw Object.assign(new Error(`unknown fault mode ${mode}`), { code: 'ERR_BAD_CONFIG' });
  /** @type {Map<number, number>} data-carrying packets sent so far, per download */
  const packets = new Map();
  /** corrupt-coded-1pct: damage 1 in FAULT_CORRUPT_EVERY of a download's data-carrying datagrams. @param {number} downloadId @param {Uint8Array} bytes */
  const maybeCorrupt = (downloadId, bytes) => {
    const k = packets.get(downloadId) ?? 0;
    packets.set(downloadId, k + 1);
    if (packets.size > MAX_COUNTED_DOWNLOADS) packets.delete(/** @type {number} */ (packets.keys().next().value));
    if (k % FAULT_CORRUPT_EVERY === FAULT_CORRUPT_FIRST) bytes[bytes.length - 1] ^= 0x5a;
  };
  return {
    ...protocol,
    encodeMessage(/** @type {any} */ msg) {
      if (mode === 'lying-meta' && msg.type === 'meta') return protocol.encodeMessage(lieInMeta(msg));
      const bytes = protocol.encodeMessage(msg);
      if (mode === 'corrupt-coded-1pct' && (msg.type === 'data' || msg.type === 'coded')) maybeCorrupt(msg.downloadId, bytes);
      return bytes;
    },
    // the session takes data packets from the sender as datagrams (nextDatagram), not through encodeMessage
    async createSender(/** @type {any} */ o) {
      const sender = await protocol.createSender(o);
      if (mode !== 'corrupt-coded-1pct') return sender;
      const next = sender.nextDatagram.bind(sender);
      sender.nextDatagram = (/** @type {number} */ now, /** @type {any} */ alloc) => {
        const bytes = next(now, alloc);
        if (bytes) maybeCorrupt(sender.downloadId, bytes);
        return bytes;
      };
      return sender;
    },
  };
}

/** lying-meta: the same meta with some checksum entries changed. @param {any} m */
function lieInMeta(m) {
  if (!m.checksums) return m;
  const cs = m.checksums;
  const values = cs.values.slice();
  for (let i = 0; i < values.length / cs.entryBytes; i++) if ((cs.first + i) % FAULT_LIE_EVERY === 0) values[i * cs.entryBytes] ^= 0xff;
  return { ...m, checksums: { ...cs, values } };
}
