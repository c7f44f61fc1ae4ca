// The `mutp` bin (spawned) against a live fleet, and an `npm start` smoke test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { demoBytes } from '@mutp/demo/media';
import { startFleet } from '@mutp/testkit/fleet';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MUTP_BIN = join(ROOT, 'proxyclientlib/bin/mutp.js');
const START = join(ROOT, 'scripts/start.js');
const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');

/** The CLI's environment in these tests: its kept proxy addresses in the suite's directory, not the user's. */
let cliEnv = {};

/**
 * @param {string} file
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 * @param {string[]} [nodeArgs] node's own flags, before the file
 * @returns {Promise<{code: number | null, stdout: string, stderr: string}>}
 */
function run(file, args, env = {}, nodeArgs = []) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, file, ...args], { cwd: ROOT, env: { ...process.env, ...cliEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Origo behind a gate for the clients' log uploads, everything else passed through. Modes: 'refuse'
 * (503, as an Origo that is overloaded or restarting), 'forward', 'forward-unanswered' (Origo
 * gets the upload, its answer is never passed back).
 * @param {string} origoUrl @param {'refuse' | 'forward' | 'forward-unanswered'} mode
 */
async function logGate(origoUrl, mode) {
  const to = new URL(origoUrl);
  const gate = {
    mode, refused: 0, answered: 0, url: '',
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  };
  const server = createHttpServer((req, res) => {
    const logs = req.url?.startsWith('/api/logs');
    if (logs && gate.mode === 'refuse') {
      gate.refused++;
      req.resume();
      return res.writeHead(503).end();
    }
    const up = httpRequest({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      if (logs && gate.mode === 'forward-unanswered') return void r.resume();
      if (logs) gate.answered++;
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  gate.url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return gate;
}

/** Poll until cond() holds; false after 10 s (mocha's timeout is longer). @param {() => boolean | Promise<boolean>} cond */
async function waitUntil(cond) {
  for (const end = Date.now() + 10_000; Date.now() < end;) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/**
 * A record Origo stores, waited for: a get hands it off and exits, so it may land just after.
 * @param {{origo: {store: {getClientRecord: (id: string) => Promise<any>}}}} fleet @param {string} id
 */
async function storedRecord(fleet, id) {
  /** @type {any} */
  let record = null;
  await waitUntil(async () => (record = await fleet.origo.store.getClientRecord(id)) !== null);
  return record;
}

/** The ids of the records a cache directory keeps for Origo, sorted. @param {string} cache */
async function keptIds(cache) {
  const folder = join(cache, 'records');
  const names = await readdir(folder).catch(() => []);
  const ids = [];
  for (const n of names.filter((x) => x.endsWith('.json'))) ids.push(...JSON.parse(await readFile(join(folder, n), 'utf8')).records.map((/** @type {{id: string}} */ r) => r.id));
  return ids.sort();
}

/** A free loopback port (bound then released). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

describe('integration: the mutp CLI', function () {
  this.timeout(60_000);
  /** @type {Awaited<ReturnType<typeof startFleet>>} */
  let fleet;
  let dir = '';
  before(async () => {
    fleet = await startFleet({ proxyCount: 2 });
    dir = await mkdtemp(join(tmpdir(), 'mutp-cli-'));
    cliEnv = { MUTP_CACHE_DIR: join(dir, 'cache') };
  });
  after(async () => {
    await fleet?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('get --json prints one stats object, writes the file, exits 0', async () => {
    const out = join(dir, 'o.bin');
    const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-1MB.bin`, '--mode', 'parallel-http', '--proxies', '2', '--origo', fleet.origo.url, '-o', out, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'exactly one line of JSON on stdout');
    const s = JSON.parse(lines[0]);
    for (const k of ['mode', 'n', 'netBytes', 'grossBytes', 'durationMs', 'goodputBps', 'throughputBps', 'normalizedGoodput', 'error']) assert.ok(k in s, `field ${k}`);
    assert.equal(s.mode, 'parallel-http');
    assert.equal(s.n, 2);
    assert.equal(s.netBytes, 1 << 20);
    assert.equal(s.error, null);
    assert.equal(sha(await readFile(out)), sha(demoBytes(1 << 20)));
    const stored = await storedRecord(fleet, s.id);
    assert.equal(stored?.netBytes, 1 << 20, 'Origo has its record');
  });

  it('a get keeps its proxies\' addresses, and the gets that connect to them ahead are byte-exact in an HTTP and an MUTP mode', async () => {
    const cache = join(dir, 'cache-kept');
    const listed = await run(MUTP_BIN, ['proxies', '--origo', fleet.origo.url, '--json']);
    const urls = JSON.parse(listed.stdout).proxies.map((/** @type {{url: string}} */ p) => p.url).sort();
    for (const mode of ['range-http', 'range-http', 'coded']) {
      const out = join(dir, `kept-${mode}.bin`);
      const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-256KB.bin`, '--mode', mode, '--proxies', '2', '--origo', fleet.origo.url, '-o', out, '--json'], { MUTP_CACHE_DIR: cache });
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout);
      assert.equal(s.error, null);
      assert.equal(sha(await readFile(out)), sha(demoBytes(256 * 1024)), mode);
      // the record travels with its packet log in columns (POST /api/logs/v2); Origo has it entry for entry
      if (mode === 'coded') assert.deepEqual((await storedRecord(fleet, s.id))?.packetLog, s.packetLog);
      const kept = JSON.parse(await readFile(join(cache, 'proxies.json'), 'utf8'));
      assert.equal(kept.origo, fleet.origo.url);
      assert.deepEqual([...kept.urls].sort(), urls, 'the addresses Origo listed');
    }
  });

  it('a get soon after another goes to the proxies and tickets Origo gave that one (its client id), and two gets at once never share them', async () => {
    const cache = join(dir, 'cache-listing');
    const get = () => run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', fleet.origo.url, '--json'], { MUTP_CACHE_DIR: cache });
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const r = await get();
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout);
      assert.equal(s.error, null);
      ids.push(s.clientId);
      if (i > 0) assert.ok(s.requestSteps.lookupMs < 5, `no wait for Origo: ${s.requestSteps.lookupMs} ms`);
    }
    assert.equal(new Set(ids).size, 1, 'one client id: each get used the listing the one before kept (and kept its own)');
    const both = await Promise.all([get(), get()]);
    const pair = both.map((r) => JSON.parse(r.stdout).clientId);
    assert.notEqual(pair[0], pair[1]);
    assert.ok(pair.includes(ids[0]), 'one of them took the kept listing');
  });

  it('a get a minute after another still takes that one\'s listing; one past the tickets\' life asks Origo', async () => {
    const cache = join(dir, 'cache-listing-age');
    const file = join(cache, 'listing.json');
    const get = () => run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', fleet.origo.url, '--json'], { MUTP_CACHE_DIR: cache });
    /** The kept listing, made `ageMs` old. @param {number} ageMs */
    const age = async (ageMs) => {
      /** @type {string | null} */
      let text = null;
      await waitUntil(async () => (text = await readFile(file, 'utf8').catch(() => null)) !== null);
      const kept = JSON.parse(/** @type {string} */ (text));
      await writeFile(file, JSON.stringify({ ...kept, at: Date.now() - ageMs }));
      return kept.clientId;
    };
    const first = await get();
    assert.equal(first.code, 0, first.stderr);
    const keptId = await age(60_000);
    const minuteLater = JSON.parse((await get()).stdout);
    assert.equal(minuteLater.error, null);
    assert.equal(minuteLater.clientId, keptId, 'a minute old: the kept proxies and tickets, at once');
    const staleId = await age(100_000);
    const later = JSON.parse((await get()).stdout);
    assert.equal(later.error, null);
    assert.notEqual(later.clientId, staleId, 'past 90 s: a new client id, Origo asked first');
  });

  it('a get exits without waiting for Origo\'s ack of its record, which reaches Origo all the same; it stays kept until a later get sees it taken', async () => {
    const gate = await logGate(fleet.origo.url, 'forward-unanswered');
    const cache = join(dir, 'cache-handoff');
    const get = () => run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', gate.url, '--json'], { MUTP_CACHE_DIR: cache });
    try {
      const first = await get();
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stderr, '', 'no warning: the record left');
      assert.equal(gate.answered, 0, 'Origo\'s ack never reached the get');
      const id = JSON.parse(first.stdout).id;
      assert.equal((await storedRecord(fleet, id))?.netBytes, 64 * 1024, 'Origo has the record');
      assert.deepEqual(await keptIds(cache), [id], 'kept: no ack said Origo has it');
      gate.mode = 'forward';
      const second = await get();
      assert.equal(second.code, 0, second.stderr);
      assert.ok(gate.answered > 0, 'the second get read an ack');
      assert.deepEqual(await keptIds(cache), [JSON.parse(second.stdout).id], 'the first record\'s file is gone; the second\'s is kept');
    } finally {
      await gate.close();
    }
  });

  it('records Origo refuses are kept, and the next get sends them', async () => {
    const gate = await logGate(fleet.origo.url, 'refuse');
    const cache = join(dir, 'cache-spool');
    const get = () => run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', gate.url, '--json'], { MUTP_CACHE_DIR: cache });
    try {
      const first = await get();
      assert.equal(first.code, 0, first.stderr);
      const kept = JSON.parse(first.stdout).id;
      assert.ok(await waitUntil(() => gate.refused > 0), 'the upload was refused');
      assert.equal(await fleet.origo.store.getClientRecord(kept), null, 'not stored');
      assert.deepEqual(await keptIds(cache), [kept]);
      gate.mode = 'forward';
      const second = await get();
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stderr, '');
      assert.equal((await storedRecord(fleet, kept))?.netBytes, 64 * 1024, 'the kept record reached Origo');
      const own = JSON.parse(second.stdout).id;
      assert.ok(await storedRecord(fleet, own), 'and the new one');
      assert.deepEqual(await keptIds(cache), [own], 'only the new one is kept, until a later get sees it taken');
    } finally {
      await gate.close();
    }
  });

  it('with no cache directory a get waits for Origo\'s ack, and says when none came', async () => {
    const gate = await logGate(fleet.origo.url, 'refuse');
    try {
      const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', gate.url, '--json'], { MUTP_CACHE_DIR: '' });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Origo did not take the stats records within 3000 ms; they were not logged/);
      gate.mode = 'forward';
      const ok = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', gate.url, '--json'], { MUTP_CACHE_DIR: '' });
      assert.equal(ok.stderr, '');
      assert.ok(await fleet.origo.store.getClientRecord(JSON.parse(ok.stdout).id), 'stored before the get ended');
    } finally {
      await gate.close();
    }
  });

  it('get without --json prints human-readable stats', async () => {
    const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-1KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', fleet.origo.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /goodput [0-9.]+ MB\/s/);
    assert.match(r.stdout, /mode range-http, 2 proxies/);
  });

  it('a refused origin URL: --json carries the error code, exit status 1', async () => {
    const r = await run(MUTP_BIN, ['get', 'http://169.254.169.254/latest/meta-data', '--mode', 'parallel-http', '--proxies', '2', '--origo', fleet.origo.url, '--json']);
    assert.equal(r.code, 1);
    const s = JSON.parse(r.stdout);
    assert.equal(s.error.code, 'ERR_ALL_PROXIES_FAILED');
    assert.ok(s.perProxy.every((/** @type {any} */ p) => ['ERR_SSRF_BLOCKED', 'ERR_HOST_NOT_ALLOWED'].includes(p.error?.code)), JSON.stringify(s.perProxy));
  });

  it('Origo unreachable: exit 1 with ERR_ORIGO_UNREACHABLE', async () => {
    const port = await freePort();
    const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-1B.bin`, '--mode', 'parallel-http', '--origo', `http://127.0.0.1:${port}`, '--json']);
    assert.equal(r.code, 1);
    assert.equal(JSON.parse(r.stdout).error.code, 'ERR_ORIGO_UNREACHABLE');
  });

  it('bad usage: exit 2 with a clear message', async () => {
    for (const args of [['get'], ['get', 'not a url'], ['get', 'http://x/', '--mode', 'tcp'], ['get', 'http://x/', '--proxies', '0'], ['frobnicate'], ['get', 'http://x/', '--bogus']]) {
      const r = await run(MUTP_BIN, args);
      assert.equal(r.code, 2, `${args.join(' ')} → ${r.code}`);
      assert.match(r.stderr, /^mutp: /);
    }
  });

  it('exits when its work is done even if something still holds the event loop, and says what', async () => {
    // a listening server nobody closes stands in for a peer connection still being set up at the end
    const leak = 'data:text/javascript,import net from "node:net"; net.createServer().listen(0, "127.0.0.1");';
    const t0 = Date.now();
    const r = await run(MUTP_BIN, ['--help'], {}, ['--import', leak]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage:/);
    assert.match(r.stderr, /still running .*TCPServerWrap.*exiting/);
    assert.ok(Date.now() - t0 < 20_000, 'it hung');
  });

  it('several URLs in turn over the same WebRTC connections: a line each, a summary, the files byte-exact, a failure counted', async () => {
    const out = join(dir, 'many');
    const list = join(dir, 'list.txt');
    await writeFile(list, `# three more\n${fleet.origin.url}/media/demo-300KB.bin\nhttp://169.254.169.254/x\n\n${fleet.origin.url}/media/demo-64KB.bin\n`);
    const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-1MB.bin`, '-i', list,
      '--mode', 'coded', '--proxies', '2', '--origo', fleet.origo.url, '-O', out, '--json']);
    assert.equal(r.code, 1, 'one object failed: exit status 1');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 5, 'a line per object, then the summary');
    assert.deepEqual(lines.slice(0, 4).map((l) => l.error?.code ?? null), [null, null, 'ERR_ALL_PROXIES_FAILED', null]);
    // the first object paid the connections' set-up before its request went out, the next ones did not
    assert.ok(lines[0].connectMs > 0 && lines[0].connectMs <= lines[0].firstPacketMs, `first: connect ${lines[0].connectMs}, first packet ${lines[0].firstPacketMs}`);
    assert.ok(lines[1].connectMs < lines[0].connectMs, `kept: connect ${lines[1].connectMs} against ${lines[0].connectMs}`);
    assert.equal(lines[0].timeBreakdown.connectMs, Math.round(lines[0].connectMs * 10) / 10);
    const { summary } = lines[4];
    assert.deepEqual([summary.objects, summary.ok, summary.failed, summary.notTried], [4, 3, 1, 0]);
    assert.equal(summary.netBytes, (1 << 20) + 300 * 1024 + 64 * 1024);
    // the refused object's proxies said why in words: their connections stay for the object after it
    assert.deepEqual(summary.connections, { opened: 2, reused: 6 }, 'one connection per proxy for the whole run, reused by the three later objects');
    for (const [name, size] of /** @type {const} */ ([['demo-1MB.bin', 1 << 20], ['demo-300KB.bin', 300 * 1024], ['demo-64KB.bin', 64 * 1024]])) {
      assert.equal(sha(await readFile(join(out, name))), sha(demoBytes(size)), name);
    }
    assert.match(r.stderr, /\[3\/4\] ERR_ALL_PROXIES_FAILED/);
  });

  it('several URLs without --json: a line per object and the summary in words', async () => {
    const r = await run(MUTP_BIN, ['get', `${fleet.origin.url}/media/demo-64KB.bin`, `${fleet.origin.url}/media/demo-1KB.bin`, '--mode', 'range-http', '--proxies', '2', '--origo', fleet.origo.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\[1\/2\] http:\/\/.*demo-64KB\.bin: 65\.5 kB in [0-9.]+ s, goodput/m);
    assert.match(r.stdout, /^2 objects: 2 ok, 0 failed$/m);
    assert.match(r.stdout, /no --output-dir DIR given: data not saved/);
  });

  it('a list file that is missing or names a bad URL: exit 2, the line named', async () => {
    const bad = join(dir, 'bad.txt');
    await writeFile(bad, 'http://h/ok\nnot-a-url\n');
    const r = await run(MUTP_BIN, ['get', '-i', bad]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.txt:2: not a URL: not-a-url/);
    const missing = await run(MUTP_BIN, ['get', '-i', join(dir, 'nope.txt')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*nope\.txt/);
  });

  it('proxies lists the fleet', async () => {
    const r = await run(MUTP_BIN, ['proxies', '--origo', fleet.origo.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const ids = JSON.parse(r.stdout).proxies.map((/** @type {any} */ p) => p.id).sort();
    assert.deepEqual(ids, fleet.proxies.map((p) => p.id).sort());
  });
});

describe('integration: npm start smoke test', function () {
  this.timeout(60_000);

  it('starts, the printed example command works, SIGINT exits 0', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [START], { cwd: ROOT, env: { ...process.env, ORIGO_PORT: String(port), DEMO_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      await new Promise((resolve, reject) => {
        child.stdout.on('data', (d) => { stdout += d; if (stdout.includes('Ctrl-C stops everything')) resolve(undefined); });
        child.once('exit', () => reject(new Error(`start.js exited early: ${stderr}`)));
      });
      const line = stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('npx mutp get '));
      assert.ok(line, `an example command is printed:\n${stdout}`);
      assert.ok(line.includes(`--origo http://127.0.0.1:${port}`), 'the example targets the chosen Origo port');
      // Run the printed command as printed, through the bin file `npx mutp` resolves to; writing
      // its -o file into a temp dir (the relative name would land in the repo root).
      const args = line.slice('npx mutp '.length).split(/\s+/);
      const dir = await mkdtemp(join(tmpdir(), 'mutp-start-'));
      const oi = args.indexOf('-o');
      const outFile = join(dir, args[oi + 1]);
      args[oi + 1] = outFile;
      const r = await run(MUTP_BIN, [...args, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).netBytes, 5 << 20);
      assert.equal(sha(await readFile(outFile)), sha(demoBytes(5 << 20)));
      await rm(dir, { recursive: true, force: true });
    } finally {
      child.kill('SIGINT');
    }
    const { code, signal } = /** @type {{code: number | null, signal: string | null}} */ (await exited);
    assert.equal(signal, null, stderr);
    assert.equal(code, 0, stderr);
  });
});
