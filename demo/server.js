#!/usr/bin/env node
// Run the demo origin alone: `node demo/server.js [--port 8090]`.
import { parseArgs } from 'node:util';
import { startDemoOrigin } from './origin.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`bad --port: ${values.port}`);
  process.exit(2);
}
const origin = await startDemoOrigin({ host: values.host, port });
console.log(`demo origin: ${origin.url}/media/demo-5MB.bin`);
const stop = () => origin.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
