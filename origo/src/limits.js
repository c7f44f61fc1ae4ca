// Every size/count limit Origo enforces, with its unit and its reason.

/** Largest POST /api/logs body, bytes: a batch of client records with per-packet logs (a 5 MB chunk at ~1 KB payload is ~5,000 packet entries, ~100 KB of JSON per record). */
export const LOGS_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/** Most client records in one POST /api/logs: bounds validation work per request. */
export const MAX_CLIENT_RECORDS_PER_POST = 1000;

/** Most proxy records in one socket.io `logs` emit: a proxy re-sending a backlog must split it. */
export const MAX_PROXY_RECORDS_PER_EMIT = 1000;

/** Largest socket.io message, bytes: 1,000 proxy records of ~1 KB with headroom; socket.io closes the connection above it. */
export const SOCKET_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Most entries in a record's packetLog: 100,000 packets is ~100 MB at 1 KB payload, far above a 5 MB video chunk. */
export const MAX_PACKET_LOG_ENTRIES = 100_000;

/** Most entries in a record's feedbackLog (times feedback was sent). */
export const MAX_FEEDBACK_LOG_ENTRIES = 100_000;

/** Most proxies one download may use (n) and the most GET /api/proxies returns: the paper used N <= 6 of 18 proxies. */
export const MAX_PROXIES_PER_DOWNLOAD = 64;

/** Longest id (proxy id, client id, download id), characters. */
export const MAX_ID_CHARS = 128;

/** Longest URL stored, characters: video URLs carry long signed query strings. */
export const MAX_URL_CHARS = 8192;

/** Longest error code/message stored, characters. */
export const MAX_ERROR_CODE_CHARS = 64;
export const MAX_ERROR_MESSAGE_CHARS = 2048;

/** Longest download accepted, ms (one day): anything longer is a broken clock, not a measurement. */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

/** Highest rate a record may state, bytes/s (100 Gbit/s): anything above is a broken clock or counter, not a proxy. */
export const MAX_RATE_BPS = 12.5e9;

/** Paper III.C: clients only connect to proxies within 3,000 km, to avoid high-RTT connections. */
export const PROXIMITY_RADIUS_KM = 3000;

/** Default public API rate limit, requests per minute per client address: generous enough for local benchmark fleets, still stops floods. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;

/** Rate limit window, ms. */
export const RATE_LIMIT_WINDOW_MS = 60_000;
