// ProxyClientLib's limits that its callers (CLI, extension settings) check too: stated here, imported there.
import { MAX_SOURCES, MAX_URL_CHARS } from '@mutp/protocol/constants';

/** Most proxies one download may use, in every mode: the wire's source limit (a MUTP feedback echoes one u32 per source). */
export const MAX_PROXIES = MAX_SOURCES;

/** Longest URL logged or downloaded (characters): the system's one URL limit, Origo stores as much. */
export { MAX_URL_CHARS };
