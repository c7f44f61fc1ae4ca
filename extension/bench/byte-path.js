// Phase 2: the extension → page byte path. Measured in the real extension context: the download
// frame the extension itself inserts into a page (chrome-extension://…/frame.html, an
// out-of-process frame in the extension's process, where the offscreen fleet host that sends
// `data` also runs), sending to the page over a MessageChannel with each ArrayBuffer
// transferred, as the fleet host does. The product's own port is a module-private
// constant, so the bench opens a second channel of the same kind from inside that frame
// (puppeteer evaluates there); no product change is needed.
import { summary } from './stats.js';
import { codedError } from '@mutp/common/errors';

const BENCH_TAG = '__mutp_bench_port'; // not the extension's tag: its page script ignores this message
const MB = 1e6; // MB/s in decimal megabytes, as the field notes' numbers

/**
 * @param {object} o
 * @param {import('puppeteer-core').Page} o.page   a page whose extension frame is present
 * @param {string} o.base                          extension base URL
 * @param {{bytes: number, count: number}[]} o.sizes
 * @param {number} o.repeats
 * @param {(line: string) => void} o.progress
 */
export async function measureBytePath({ page, base, sizes, repeats, progress }) {
  const frame = page.frames().find((f) => f.url().startsWith(base) && f.url().endsWith('/frame.html'));
  if (!frame) throw codedError('ERR_BENCH_SETUP', 'the extension frame is not in the page');
  await page.evaluate((tag) => {
    /** @type {any} */ (window).__benchPort = new Promise((resolve) => {
      window.addEventListener('message', function once(e) {
        if (!e.data || e.data[tag] !== 'port' || !e.ports[0]) return;
        window.removeEventListener('message', once);
        resolve({ port: e.ports[0], origin: e.origin });
      });
    });
  }, BENCH_TAG);
  const frameOrigin = await frame.evaluate((tag) => {
    const ch = new MessageChannel();
    // on `go`, send `count` fresh buffers of `bytes`, each transferred; sequence number in the first 4 bytes
    ch.port1.onmessage = (e) => {
      const { bytes, count } = e.data;
      let copied = 0;
      for (let i = 0; i < count; i++) {
        const buf = new ArrayBuffer(bytes);
        new DataView(buf).setUint32(0, i);
        ch.port1.postMessage(buf, [buf]);
        if (buf.byteLength !== 0) copied++; // a transferred buffer is detached here
      }
      ch.port1.postMessage({ copied });
    };
    window.parent.postMessage({ [tag]: 'port' }, '*', [ch.port2]);
    return location.origin;
  }, BENCH_TAG);
  const origin = await page.evaluate(async () => (await /** @type {any} */ (window).__benchPort).origin);
  if (origin !== frameOrigin) throw codedError('ERR_BENCH_SETUP', `port came from ${origin}, not the extension frame ${frameOrigin}`);

  const results = [];
  for (const { bytes, count } of sizes) {
    /** @type {number[]} */
    const mbps = [];
    /** @type {number[]} */
    const msgsPerS = [];
    for (let r = 0; r < repeats; r++) {
      const got = await page.evaluate(async (bytes, count) => {
        const { port } = await /** @type {any} */ (window).__benchPort;
        return new Promise((resolve) => {
          let seen = 0;
          let total = 0;
          let outOfOrder = 0;
          let ms = 0;
          const t0 = performance.now();
          port.onmessage = (e) => {
            const d = e.data;
            if (d instanceof ArrayBuffer) {
              if (new DataView(d).getUint32(0) !== seen) outOfOrder++;
              seen++;
              total += d.byteLength;
              if (seen === count) ms = performance.now() - t0;
            } else resolve({ ms, seen, total, outOfOrder, copied: d.copied });
          };
          port.postMessage({ bytes, count });
        });
      }, bytes, count);
      if (got.seen !== count || got.total !== bytes * count || got.outOfOrder !== 0 || got.copied !== 0) {
        throw codedError('ERR_BENCH_BYTES', `byte path ${bytes} B × ${count}: ${JSON.stringify(got)}`);
      }
      mbps.push(got.total / MB / (got.ms / 1000));
      msgsPerS.push(count / (got.ms / 1000));
    }
    progress(`  ${bytes} B × ${count} × ${repeats}: done`);
    results.push({ bufferBytes: bytes, buffersPerRun: count, runs: repeats, mbPerS: summary(mbps), buffersPerS: summary(msgsPerS) });
  }
  return { where: 'real extension frame (chrome-extension://…/frame.html inserted by the extension) → page, bench-opened MessageChannel, ArrayBuffers transferred', frameOrigin, results };
}
