// ProxyClientLib's limits that its callers (CLI, extension settings) check too: stated here, imported there.
import { MAX_SOURCES, MAX_URL_CHARS, PROXY_HTTP_IDLE_MS } from '@mutp/protocol/constants';

/** Most proxies one download may use, in every mode: the wire's source limit (a MUTP feedback echoes one u32 per source). */
export const MAX_PROXIES = MAX_SOURCES;

/** Longest URL logged or downloaded (characters): the system's one URL limit, Origo stores as much. */
export { MAX_URL_CHARS };

/**
 * Most of an Origo answer a client reads (bytes): a proxy list or tickets (at most 64 entries of
 * ~600 bytes), or a log batch's ack (the ids of at most 20 records). Far above what Origo sends;
 * an endless body stops here (capped-body.js).
 */
export const MAX_ORIGO_ANSWER_BYTES = 1024 * 1024;

/** Most objects one prefetch call names: a manifest's init sections, one per rendition of a VOD stream. */
export const MAX_PREFETCH_URLS = 16;

/** A caller that keeps proxies' HTTP connections warm (warmHttp) opens them again after this long
 * (ms): a little before a proxy closes an idle one (PROXY_HTTP_IDLE_MS), so a warm connection is open. */
export const HTTP_REWARM_MS = PROXY_HTTP_IDLE_MS - 5_000;
