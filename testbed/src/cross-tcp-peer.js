#!/usr/bin/env node
// One end of the testbed's cross traffic, run inside a namespace:
//   cross-tcp-peer.js recv IP PORT   listens; prints "ready", then answers each stdin line with
//                                    the payload bytes received so far (a JSON number)
//   cross-tcp-peer.js send IP PORT   connects and streams bytes as fast as TCP takes them
import net from 'node:net';
import { createInterface } from 'node:readline';

const WRITE_CHUNK_BYTES = 64 * 1024; // one write per socket-buffer refill, not one per segment
const CONNECT_RETRY_MS = 100; // the receiver is up first; a retry covers a slow accept under load

const [role, host, portText] = process.argv.slice(2);
const port = Number(portText);

if (role === 'recv') {
  let received = 0;
  const server = net.createServer((s) => {
    s.on('data', (d) => (received += d.length));
    s.on('error', () => {}); // the sender is killed at the end: a reset is expected
  });
  server.listen(port, host, () => process.stdout.write('ready\n'));
  createInterface({ input: process.stdin }).on('line', () => process.stdout.write(`${received}\n`)).on('close', () => process.exit(0));
} else if (role === 'send') {
  const chunk = Buffer.alloc(WRITE_CHUNK_BYTES, 0x5a);
  const connect = () => {
    const s = net.connect(port, host);
    const fill = () => {
      while (s.write(chunk));
    };
    s.on('connect', fill);
    s.on('drain', fill);
    s.on('error', () => setTimeout(connect, CONNECT_RETRY_MS));
  };
  connect();
} else {
  process.stderr.write('usage: cross-tcp-peer.js recv|send IP PORT\n');
  process.exit(2);
}
