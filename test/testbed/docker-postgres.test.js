// docker-compose.postgres.yml (several Origos on PostgreSQL behind nginx) validates with
// `docker-compose config`, and wires what the multi-Origo design needs. No Docker engine runs here.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireOrSkip } from '@mutp/testkit/require-tool';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILE = 'docker-compose.postgres.yml';
const ENV = { ...process.env, ORIGO_PROXY_SECRET: 'test-secret-0123456789', ORIGO_ADMIN_PASSWORD: 'test-password',
  PUBLIC_NAME: 'mutp.example.org', POSTGRES_PASSWORD: 'pg-test-password' };

describe('Docker: several Origos on PostgreSQL', function () {
  this.timeout(30_000);
  before(function () { requireOrSkip(this, { commands: ['docker-compose'] }); });

  it('validates: PostgreSQL, two Origos on it, a load balancer, proxies given both Origos', () => {
    const out = execFileSync('docker-compose', ['-f', FILE, 'config'], { cwd: ROOT, env: ENV, encoding: 'utf8' });
    const services = [...out.matchAll(/^ {2}([\w-]+):$/gm)].map((m) => m[1]);
    for (const s of ['postgres', 'origo-1', 'origo-2', 'lb', 'proxy-1', 'proxy-4']) assert.ok(services.includes(s), s);
    assert.equal([...out.matchAll(/ORIGO_DB: postgres:\/\/mutp:pg-test-password@postgres:5432\/mutp/g)].length, 2);
    const origoUrls = [...out.matchAll(/ORIGO_URL: (\S+)/g)].map((m) => m[1]);
    assert.equal(origoUrls.length, 4);
    assert.ok(origoUrls.every((u) => u.split(',').length === 2), 'every proxy can fail over');
    assert.equal(new Set(origoUrls.map((u) => u.split(',')[0])).size, 2, 'the proxies start spread over both Origos');
  });

  it('refuses to start without the database password', () => {
    const env = { ...ENV };
    delete env.POSTGRES_PASSWORD;
    const r = spawnSync('docker-compose', ['-f', FILE, 'config'], { cwd: ROOT, env, encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /POSTGRES_PASSWORD/);
  });

  it('the load balancer is sticky and passes WebSocket upgrades to both Origos', () => {
    const conf = readFileSync(join(ROOT, 'origo/deploy/origo-lb.conf.template'), 'utf8');
    assert.match(conf, /^\s*ip_hash;/m);
    assert.deepEqual([...conf.matchAll(/^\s*server (origo-\d):8080/gm)].map((m) => m[1]), ['origo-1', 'origo-2']);
    assert.match(conf, /proxy_set_header Upgrade \$http_upgrade;/);
  });
});
