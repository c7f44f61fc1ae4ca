// ProxyClientLib: download one object through N proxies (Parallel HTTP, Range-split HTTP,
// Uncoded MUTP, Coded MUTP) and report a log record per download.
export { createClient, MODES, DEFAULT_PROXIES, parseRange, objectKey } from './src/client.js';
export { MAX_PROXIES } from './src/limits.js';
export { createLogSender } from './src/log-sender.js';
export { buildRecord, redactUrl } from './src/stats-record.js';
export { proxyEndpoint } from './src/http/proxy-fetch.js';
export { codedError } from '@mutp/common/errors';
