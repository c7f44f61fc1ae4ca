export { startProxy } from './src/server.js';
export { resolveConfig } from './src/config/resolve-config.js';
export { DEFAULT_ALLOWED_HOSTS } from './src/ssrf/host-allowlist.js';
