// Every size/count limit Origo enforces, with its unit and its reason.
import { MAX_SOURCES, MAX_URL_CHARS } from '@mutp/protocol/constants';

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

/** Most proxies one download may use (n, proxyIds, perProxy): the wire's source limit, the same in every mode. */
export const MAX_PROXIES_PER_DOWNLOAD = MAX_SOURCES;

/** Most proxies GET /api/proxies lists and GET /api/tickets tickets at once: a download's proxies plus its spares (the paper used N <= 6 of 18 proxies). */
export const MAX_PROXIES_LISTED = 64;

/** Longest id (proxy id, client id, download id), characters. */
export const MAX_ID_CHARS = 128;

/** Longest URL stored, characters: the system's one URL limit. */
export { MAX_URL_CHARS };

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

/** Statuses a proxy's `status` stores, at most one per this period per proxy (ms): the latest wins. A proxy reports every 5 s (STATUS_EVERY_MS), so no honest sample is lost. */
export const STATUS_STORE_EVERY_MS = 5000;

/**
 * socket.io events (status, logs, anything) one proxy connection may send, sustained per second: an honest proxy sends
 * a status every 5 s (200 ms in tests) and one log batch per ack. Above it, plus the burst below, it is disconnected.
 */
export const PROXY_EVENTS_PER_SECOND = 50;

/** Burst of events above the sustained rate (count): reconnect catch-up (a status and a backlog of batches) fits. */
export const PROXY_EVENTS_BURST = 200;

/** A proxy disconnected for flooding may not reconnect for this long (ms): reconnecting costs a handshake and an HMAC. */
export const PROXY_FLOOD_COOLDOWN_MS = 30_000;

/** Log batches of one proxy connection being stored at once: a proxy sends one and waits for its ack; more get ERR_BUSY. */
export const MAX_LOG_BATCHES_IN_FLIGHT_PER_PROXY = 2;

/** Largest `extra` (a record's unknown top-level keys and params, as JSON), bytes: room for a newer client's few fields, not for junk. */
export const MAX_EXTRA_BYTES = 4096;

/**
 * Default cap of client-record bytes stored per client address per minute (JSON bytes of accepted records): a campaign
 * client records ~130 downloads a minute at ~30 KB each (4 MB); 16 MiB bounds a hostile address to ~23 GiB a day at most. 0 = off.
 */
export const DEFAULT_LOG_BYTES_PER_MINUTE = 16 * 1024 * 1024;

/** Default cap of client tickets issued per client address per minute: a download takes N ≤ 64 (paper: ≤ 6); 600 is ~150 downloads of 4. 0 = off. */
export const DEFAULT_TICKETS_PER_MINUTE = 600;

/** Quota window (ms) of the two per-address caps above. */
export const QUOTA_WINDOW_MS = 60_000;

/**
 * How long Origo keeps a client's idle HTTP connection open (ms). A client's fetch keeps it this
 * long less 2 s (undici reads the server's Keep-Alive hint), so a download that outlasts it posts
 * its record on the connection its proxy lookup opened: with Node's 5 s, a one-off longer than 3 s
 * paid a new TCP handshake at its end. The proxies keep theirs as long (PROXY_HTTP_IDLE_MS).
 */
export const HTTP_IDLE_MS = 65_000;

/** A request's headers must arrive within this (ms); slowloris connections are closed after it. */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;

/** A whole request (headers and body) must arrive within this (ms): an 8 MiB log batch at ~300 KB/s. */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;

/** How often Node checks the two timeouts above (ms); its default of 30 s would let a stalled request live 40 s. */
export const HTTP_TIMEOUT_CHECK_MS = 1000;
