// No Docker engine runs here: validate docker-compose.yml with `docker-compose config` and check
// that the Dockerfiles start the real entry points with flags/variables those accept.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { requireOrSkip, hasCommand } from '@mutp/testkit/require-tool';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (/** @type {string} */ p) => readFileSync(join(ROOT, p), 'utf8');
const COMPOSE_ENV = { ...process.env, ORIGO_PROXY_SECRET: 'test-secret-0123456789', ORIGO_ADMIN_PASSWORD: 'test-password', PUBLIC_NAME: 'mutp.example.org' };
const PAPER_RATES = ['896KiB', '1792KiB'];

/** Dockerfile → {entrypoint, cmd, env: Record, copies: string[][]} (JSON-form ENTRYPOINT/CMD only). @param {string} text */
function parseDockerfile(text) {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const out = { entrypoint: /** @type {string[]} */ ([]), cmd: /** @type {string[]} */ ([]), env: /** @type {Record<string, string>} */ ({}), copies: /** @type {string[][]} */ ([]) };
  for (const l of lines) {
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(l) ?? [];
    if (op === 'ENTRYPOINT') out.entrypoint = JSON.parse(rest);
    if (op === 'CMD') out.cmd = JSON.parse(rest);
    if (op === 'ENV') for (const m of rest.matchAll(/(\w+)=(\S+)/g)) out.env[m[1]] = m[2];
    if (op === 'COPY' && !rest.startsWith('--from=')) out.copies.push(rest.split(/\s+/)); // --from: another build stage
  }
  return out;
}
/** "/app/x" in the image → the repo file. @param {string} p */
const repoPath = (p) => join(ROOT, p.replace(/^\/app\//, ''));

describe('Docker deployment files', function () {
  this.timeout(30_000);

  it('docker-compose config validates, with Origo and 4 proxies at the paper\'s rates', function () {
    if (!hasCommand('docker-compose') && !hasCommand('docker')) requireOrSkip(this, { commands: ['docker-compose'] });
    const [cmd, args] = hasCommand('docker-compose') ? ['docker-compose', ['-f', 'docker-compose.yml', 'config']] : ['docker', ['compose', '-f', 'docker-compose.yml', 'config']];
    const out = execFileSync(cmd, args, { cwd: ROOT, env: COMPOSE_ENV, encoding: 'utf8' });
    assert.match(out, /^ {2}origo:/m);
    const proxies = [...out.matchAll(/^ {2}(proxy-\d+):/gm)].map((m) => m[1]);
    assert.equal(proxies.length, 4);
    const rates = [...out.matchAll(/UPLOAD_RATE: (\S+)/g)].map((m) => m[1]);
    assert.deepEqual(rates.sort(), ['1792KiB', '896KiB', '896KiB', '896KiB']);
    assert.equal([...out.matchAll(/- NET_ADMIN/g)].length, 4, 'every proxy needs NET_ADMIN for tc/iptables');
  });

  it('docker-compose refuses to start without the secrets', function () {
    if (!hasCommand('docker-compose')) return requireOrSkip(this, { commands: ['docker-compose'] });
    const env = { ...COMPOSE_ENV };
    delete env.ORIGO_PROXY_SECRET;
    const r = spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config'], { cwd: ROOT, env, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /ORIGO_PROXY_SECRET/);
  });

  it('the proxy image starts shaping/container-start, which runs the real proxy', () => {
    const d = parseDockerfile(read('proxy/Dockerfile'));
    assert.deepEqual(d.entrypoint, ['/app/shaping/container-start']);
    const start = repoPath(d.entrypoint[0]);
    assert.ok(statSync(start).mode & 0o111, 'container-start is executable');
    const script = readFileSync(start, 'utf8');
    assert.match(script, /"\$HERE\/shape" --dev/);
    assert.match(script, /exec node "\$PROXY_BIN"/);
    assert.ok(existsSync(join(ROOT, 'proxy/bin/proxy.js')));
    // every variable the image and compose set is one the proxy (or container-start) documents
    const proxyHelp = execFileSync(process.execPath, [join(ROOT, 'proxy/bin/proxy.js'), '--help'], { encoding: 'utf8' });
    const startHelp = execFileSync(start, ['--help'], { encoding: 'utf8' });
    const composeVars = [...read('docker-compose.yml').matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1]);
    for (const v of [...Object.keys(d.env), ...composeVars]) {
      if (v === 'NODE_ENV' || v.startsWith('ORIGO_') && !['ORIGO_URL', 'ORIGO_PROXY_SECRET'].includes(v)) continue; // Origo's own, checked below
      assert.ok(proxyHelp.includes(v) || startHelp.includes(v), `${v} is neither a proxy nor a container-start variable`);
    }
    for (const rate of PAPER_RATES) execFileSync(join(ROOT, 'shaping/shape'), ['--dev', 'eth0', '--upload', rate, '--dry-run']);
  });

  it('the proxy image builds the tuned WebRTC and refuses to run without it', () => {
    const text = read('proxy/Dockerfile');
    assert.match(text, /^RUN .*node proxy\/native\/build-rtc\.js$/m);
    assert.match(text, /^COPY --from=rtc \/app\/proxy\/native\/build\/node-datachannel\/ proxy\/native\/build\/node-datachannel\/$/m);
    assert.equal(parseDockerfile(text).env.MUTP_RTC_BUILD, 'tuned');
  });

  it('the proxy image copies every workspace package.json the lockfile needs, and the code it runs', () => {
    const workspaces = JSON.parse(read('package.json')).workspaces;
    for (const file of ['proxy/Dockerfile', 'origo/Dockerfile']) {
      const copied = parseDockerfile(read(file)).copies.map((c) => c[0]);
      for (const w of workspaces) assert.ok(copied.includes(`${w}/package.json`), `${file} must COPY ${w}/package.json for npm ci`);
      for (const src of copied) assert.ok(existsSync(join(ROOT, src)), `${file}: ${src} does not exist`);
    }
    const proxyCopies = parseDockerfile(read('proxy/Dockerfile')).copies.map((c) => c[0]);
    for (const dep of ['rlnc/', 'protocol/', 'proxy/', 'shaping/']) assert.ok(proxyCopies.includes(dep), `proxy image needs ${dep}`);
  });

  it('the Origo image runs origo/bin/origo.js with variables it accepts', () => {
    const d = parseDockerfile(read('origo/Dockerfile'));
    assert.deepEqual(d.entrypoint, ['node', '/app/origo/bin/origo.js']);
    assert.ok(existsSync(repoPath(d.entrypoint[1])));
    const help = execFileSync(process.execPath, [repoPath(d.entrypoint[1]), '--help'], { encoding: 'utf8' });
    const composeOrigo = /^ {2}origo:\n([\s\S]*?)^ {2}\S/m.exec(read('docker-compose.yml'))?.[1] ?? '';
    const vars = [...Object.keys(d.env), ...[...composeOrigo.matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1])].filter((v) => v !== 'NODE_ENV');
    assert.ok(vars.includes('ORIGO_DB') && vars.includes('ORIGO_PROXY_SECRET'));
    for (const v of vars) assert.ok(help.includes(v), `origo --help does not know ${v}`);
  });
});
