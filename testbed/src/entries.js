// The Node programs the testbed and the cost bench start, each its own process.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const ENTRY = Object.freeze({
  origo: join(ROOT, 'origo/bin/origo.js'),
  proxy: join(ROOT, 'proxy/bin/proxy.js'),
  origin: join(ROOT, 'demo/server.js'),
  agent: fileURLToPath(new URL('./client-agent.js', import.meta.url)),
});
