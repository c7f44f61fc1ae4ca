// Small Node programs the namespace tests run with `node -e` inside a network namespace
// (testkit/netns.js nodeIn): traffic sources and sinks that print what they measured.

/** argv: port warmSeconds spanSeconds. Counts TCP payload bytes between warm and warm+span s after the first byte; prints bytes/s. */
export const TCP_SINK = `
import net from 'node:net';
const [port, warm, span] = process.argv.slice(1).map(Number);
let t0 = 0, bytes = 0;
const srv = net.createServer((s) => s.on('data', (d) => {
  const now = performance.now();
  if (!t0) t0 = now;
  const t = (now - t0) / 1000;
  if (t >= warm && t < warm + span) bytes += d.length;
  if (t >= warm + span) { console.log(bytes / span); process.exit(0); }
}));
srv.listen(port, '0.0.0.0');
`;

/** argv: host port lifetimeMs. Sends TCP as fast as the socket takes it until the sink closes or lifetimeMs passes. */
export const TCP_SOURCE = `
import net from 'node:net';
const [host, port, lifetimeMs] = process.argv.slice(1);
const chunk = Buffer.alloc(64 * 1024, 7);
const s = net.connect(Number(port), host, () => { const go = () => { while (s.write(chunk)); }; s.on('drain', go); go(); });
s.on('error', () => process.exit(0));
setTimeout(() => process.exit(0), Number(lifetimeMs));
`;

/** argv: host port count. Sends count 200-byte UDP datagrams, 40 every 4 ms. */
export const UDP_SOURCE = `
import dgram from 'node:dgram';
const [host, port, count] = process.argv.slice(1);
const s = dgram.createSocket('udp4'); const buf = Buffer.alloc(200, 1); let i = 0;
const tick = () => { for (let k = 0; k < 40 && i < Number(count); k++, i++) s.send(buf, Number(port), host);
  if (i < Number(count)) setTimeout(tick, 4); else setTimeout(() => process.exit(0), 200); };
tick();
`;

/** argv: host port n. Prints n TCP connect times in ms (SYN out, SYN-ACK back: one round trip), sorted. */
export const CONNECT_TIMES = `
import net from 'node:net';
const [host, port, n] = process.argv.slice(1);
const t = [];
for (let i = 0; i < Number(n); i++) {
  const t0 = performance.now();
  await new Promise((res, rej) => { const s = net.connect(Number(port), host, () => { t.push(performance.now() - t0); s.destroy(); res(); }); s.on('error', rej); });
}
console.log(JSON.stringify(t.sort((a, b) => a - b)));
`;
