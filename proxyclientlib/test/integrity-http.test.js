// Integrity in the HTTP modes, on a real local fleet over loopback: four real proxies, one of
// them behind a man in the middle that lies (testkit/tamper-proxy.js), so the lie comes
// from outside the proxy's own code. Every download must be byte-exact, every streamed piece
// too, no honest proxy blamed, and the liar named with ERR_INTEGRITY. Each case runs with the
// blocks hashed inline (Node's default) and off the thread, as a browser's WebCrypto does, and
// Range-split once more with its first shares streamed (a paced origin, a new URL each time: the
// proxies answer while the origin still sends, and the lists come apart).
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { BLOCK_BYTES, CHECKSUM_ENTRY_BYTES, DIGEST_HEADER_BYTES } from '@mutp/protocol';
import { startProxy } from '@mutp/proxy';
import { createClient } from '../index.js';
import { startTamperProxy } from '@mutp/testkit/tamper-proxy';
import { paceBody } from '@mutp/testkit/local-origin';
import { sha256, testBytes } from '@mutp/testkit/mutp-harness';

const OBJECT_BYTES = 4 * 1024 * 1024; // the attack: a 4 MiB random object
const LIAR = 1; // source index of the lying proxy
const HONEST_DELAY_MS = 40; // honest proxies answer bodies this much later: the liar's bytes come first, so they must be refused, not just outrun
const LATE_HONEST_DELAY_MS = 600; // an honest proxy whose answers come this much later: the other two have delivered (or tied on) every block by then
const NAME_ATTEMPTS = 3; // downloads before the liar must have been named (see downloadUntilNamed)
const silent = { info() {}, warn() {}, error() {} };
const HASH_JITTER_MS = 3; // an off-thread hash comes back after up to this long: out of order, after later bytes
/** Block checksums as a browser takes them off its thread: WebCrypto (Node's here), each after a random wait. @param {Uint8Array} bytes */
const offThreadChecksum = async (bytes) => {
  await new Promise((r) => setTimeout(r, Math.random() * HASH_JITTER_MS));
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (bytes))).subarray(0, CHECKSUM_ENTRY_BYTES);
};
/** How blocks are hashed: createClient's checksumAsync. */
const HASHING = { inline: null, 'off the thread': offThreadChecksum };
const quiet = { warn() {} };
/** A paced origin (paths under /slow/) sends this many bytes ... */
const PACED_PIECE_BYTES = 256 * 1024;
/** ... every this many ms: 4 MiB in ~150 ms, far past the proxies' wait for a whole object before a share */
const PACED_EVERY_MS = 10;

/** The liars: each tampers with what one proxy answers. @type {Record<string, import('@mutp/testkit/tamper-proxy').Tamper>} */
const LIARS = {
  'corrupts one byte per block': {
    body: (c, at) => { for (let i = (BLOCK_BYTES - (at % BLOCK_BYTES) + 1000) % BLOCK_BYTES; i < c.length; i += BLOCK_BYTES) c[i] ^= 0xff; },
  },
  'serves another object of the same size (honest digests)': { rewriteUrl: (u, digests) => (digests ? u : u.replace('/a.bin', '/b.bin')) },
  'lies in its digest list (honest bytes)': {
    digests: (l) => { for (let o = DIGEST_HEADER_BYTES; o < l.length; o += CHECKSUM_ENTRY_BYTES) l[o] ^= 0xff; },
  },
  'lies consistently: another object, and its digests': { rewriteUrl: (u) => u.replace('/a.bin', '/b.bin') },
};

describe('HTTP modes: integrity against a lying proxy (real proxies, loopback)', function () {
  this.timeout(120_000);
  const a = testBytes(OBJECT_BYTES, 11);
  const b = testBytes(OBJECT_BYTES, 12);
  /** @type {http.Server} */ let origin;
  /** @type {string} */ let originUrl;
  /** @type {Awaited<ReturnType<typeof startProxy>>[]} */ let proxies = [];
  /** @type {{close: () => Promise<void>}[]} */ const mitms = [];
  let lateRuns = 0; // a new URL each time: uncached at every proxy

  before(async () => {
    origin = http.createServer((req, res) => {
      const path = String(req.url).split('?')[0];
      const paced = path.startsWith('/slow/');
      const name = paced ? path.slice('/slow'.length) : path;
      const body = name === '/a.bin' ? a : name === '/b.bin' ? b : null;
      if (!body) return res.writeHead(404).end();
      if (paced) return paceBody(res, body, { pieceBytes: PACED_PIECE_BYTES, everyMs: PACED_EVERY_MS });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.byteLength) }).end(body);
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const { port } = /** @type {import('node:net').AddressInfo} */ (origin.address());
    originUrl = `http://127.0.0.1:${port}`;
    proxies = await Promise.all([0, 1, 2, 3].map((i) => startProxy({ id: `p${i}`, port: 0, host: '127.0.0.1', allowPrivate: true, allowedHosts: [`127.0.0.1:${port}`], logger: silent })));
  });
  afterEach(async () => { await Promise.all(mitms.splice(0).map((m) => m.close())); });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    origin.closeAllConnections();
    await new Promise((r) => origin.close(r));
  });

  /**
   * Refs for the first `n` proxies: the one at `liar` behind a tampering man in the middle, the
   * others (when there is a liar) behind one that only delays their bodies.
   * @param {number} n @param {number | null} liar @param {import('@mutp/testkit/tamper-proxy').Tamper} [tamper]
   */
  async function refs(n, liar, tamper) {
    const out = [];
    for (let i = 0; i < n; i++) {
      let url = proxies[i].url;
      if (liar !== null) {
        const m = await startTamperProxy({ upstream: url, tamper: i === liar ? /** @type {any} */ (tamper) : { delayBodyMs: HONEST_DELAY_MS } });
        mitms.push(m);
        url = m.url;
      }
      out.push({ id: `p${i}`, url });
    }
    return out;
  }

  /**
   * Download, checking every streamed piece against the true object as it comes.
   * @param {string} mode @param {{id: string, url: string}[]} ps @param {{start: number, end: number}} [range]
   * @param {string} [path]  the object a's path at the origin
   */
  async function download(mode, ps, range, checksumAsync = null, path = '/a.bin') {
    const want = range ? a.subarray(range.start, range.end + 1) : a;
    const seen = new Uint8Array(want.byteLength);
    let wrong = 0;
    const onProgress = (/** @type {any} */ p) => {
      for (const c of p.chunks) {
        if (sha256(c.bytes) !== sha256(want.subarray(c.offset, c.offset + c.bytes.byteLength))) wrong++;
        for (let k = c.offset; k < c.offset + c.bytes.byteLength; k++) seen[k]++;
      }
    };
    const client = createClient({ origo: null, logger: quiet, checksumAsync });
    try {
      const res = await client.download(`${originUrl}${path}`, { mode, proxies: ps, range, onProgress });
      return { res, wrong, seen, want };
    } catch (err) {
      return { err: /** @type {any} */ (err), wrong, seen, want };
    } finally {
      client.close();
    }
  }

  /** @param {any} stats @param {number | null} liar */
  function assertNoHonestBlamed(stats, liar) {
    const why = JSON.stringify(stats.perProxy.map((/** @type {any} */ p) => p.error));
    stats.perProxy.forEach((/** @type {any} */ p, /** @type {number} */ i) => { if (i !== liar) assert.equal(p.error, null, `honest proxy ${i} blamed: ${why}`); });
  }

  /**
   * A liar whose lies all arrive after the honest proxies completed the download harmed nothing
   * and left nothing to detect (a busy machine can do that), so download up to NAME_ATTEMPTS
   * times: every one byte-exact, streamed and final, with no honest proxy blamed; one must name the liar.
   * @param {string} mode @param {{id: string, url: string}[]} ps @param {{start: number, end: number}} [range]
   * @param {() => string} [pathOf]  object a's path for each attempt
   */
  async function downloadUntilNamed(mode, ps, range, checksumAsync = null, pathOf = () => '/a.bin') {
    for (let attempt = 1; ; attempt++) {
      const { res, err, wrong, seen, want } = await download(mode, ps, range, checksumAsync, pathOf());
      assert.equal(err, undefined, `download failed: ${err?.code} ${err?.message}`);
      assert.equal(sha256(res.data), sha256(want), 'final data byte-exact');
      assert.equal(wrong, 0, 'every streamed piece byte-exact');
      assert.ok(seen.every((v) => v === 1), 'every byte streamed exactly once');
      assert.equal(res.stats.verified, true);
      assertNoHonestBlamed(res.stats, LIAR);
      if (res.stats.perProxy[LIAR].error?.code === 'ERR_INTEGRITY' || attempt === NAME_ATTEMPTS) {
        assert.equal(res.stats.perProxy[LIAR].error?.code, 'ERR_INTEGRITY', `the liar named (attempt ${attempt})`);
        return res;
      }
    }
  }

  for (const [hashing, hash] of Object.entries(HASHING)) for (const mode of ['parallel-http', 'range-http']) {
    describe(`${mode}, blocks hashed ${hashing}`, () => {
      for (const [name, tamper] of Object.entries(LIARS)) {
        it(`3 honest proxies and 1 that ${name}: byte-exact, streamed and final; the liar named`, async () => {
          await downloadUntilNamed(mode, await refs(4, LIAR, tamper), undefined, hash);
        });
      }

      it('a byte range whose ends are inside blocks, against a byte-corrupting liar', async () => {
        await downloadUntilNamed(mode, await refs(4, LIAR, LIARS['corrupts one byte per block']), { start: 100_000, end: 3_000_000 }, hash);
      });

      it('one proxy: nothing to vote with, so the record says verified: false', async () => {
        const { res, wrong } = await download(mode, await refs(1, null), undefined, hash);
        assert.equal(sha256(res.data), sha256(a));
        assert.equal(wrong, 0);
        assert.equal(res.stats.verified, false);
      });

      it('two proxies, one lying in its digests: its own bytes expose it; the download rests on one proxy (verified: false)', async () => {
        const { res, err, wrong } = await download(mode, await refs(2, LIAR, LIARS['lies in its digest list (honest bytes)']), undefined, hash);
        assert.equal(err, undefined, `download failed: ${err?.code} ${err?.message}`);
        assert.equal(sha256(res.data), sha256(a));
        assert.equal(wrong, 0);
        assert.equal(res.stats.perProxy[LIAR].error?.code, 'ERR_INTEGRITY');
        assertNoHonestBlamed(res.stats, LIAR);
        assert.equal(res.stats.verified, false);
      });

      it(`three proxies: a consistent liar, an honest one, and an honest one ${LATE_HONEST_DELAY_MS} ms slower: the slow one's list breaks the tie; byte-exact, the liar named`, async () => {
        const ps = await refs(3, LIAR, LIARS['lies consistently: another object, and its digests']);
        const slow = await startTamperProxy({ upstream: proxies[2].url, tamper: { delayBodyMs: LATE_HONEST_DELAY_MS } });
        mitms.push(slow);
        ps[2] = { id: 'p2', url: slow.url };
        const { res, err, wrong } = await download(mode, ps, undefined, hash, `/a.bin?late=${++lateRuns}`);
        assert.equal(err, undefined, `download failed: ${err?.code} ${err?.message}`);
        assert.equal(sha256(res.data), sha256(a));
        assert.equal(wrong, 0);
        assert.equal(res.stats.perProxy[LIAR].error?.code, 'ERR_INTEGRITY');
        assertNoHonestBlamed(res.stats, LIAR);
      });

      it('two proxies, one lying consistently: nobody is believed alone, the download fails with ERR_INTEGRITY_UNRESOLVED', async () => {
        const { err, wrong } = await download(mode, await refs(2, LIAR, LIARS['lies consistently: another object, and its digests']), undefined, hash);
        assert.equal(err?.code, 'ERR_INTEGRITY_UNRESOLVED', `${err?.code} ${err?.message}`);
        assert.doesNotMatch(err.message, /undefined/, 'each proxy\'s outcome said in words');
        assert.equal(wrong, 0, 'no wrong byte streamed');
        assertNoHonestBlamed(err.stats, null);
      });
    });
  }

  describe('range-http, first shares streamed while the origin still sends', () => {
    let cold = 0;
    const fresh = () => `/slow/a.bin?cold=${++cold}`; // uncached at every proxy
    for (const [name, tamper] of Object.entries(LIARS)) {
      it(`3 honest proxies and 1 that ${name}: byte-exact, streamed and final; the liar named`, async () => {
        await downloadUntilNamed('range-http', await refs(4, LIAR, tamper), undefined, null, fresh);
      });
    }
  });
});
