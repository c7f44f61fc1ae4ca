export { createWebServer, readTlsPair, pickTlsFiles, CERT_POLL_MS } from './src/web-server.js';
