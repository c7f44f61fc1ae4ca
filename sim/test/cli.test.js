import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SIM = fileURLToPath(new URL('../bin/sim.js', import.meta.url));

/** @param {string[]} args */
function sim(args) {
  const r = spawnSync(process.execPath, [SIM, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('sim CLI', function () {
  this.timeout(30_000); // spawns node processes; the shared machine is slow
  it('refuses bad input with exit status 2 and a clear message', () => {
    /** @type {Array<[string[], RegExp]>} */
    const cases = [
      [['--rates', '4xfoo'], /bad rate 'foo'/],
      [['--mode', 'tcp'], /--mode must be one of/],
      [['--loss', '1.5'], /--loss must be a number/],
      [['--seeds', '0'], /--seeds must be an integer/],
      [['--size', 'big'], /bad size/],
      [['--sweep', 'nope=1,2'], /unknown --sweep axis/],
      [['--sweep', 'n=2,x'], /--n must be an integer/],
      [['--bogus'], /Unknown option/],
      [['--json', '--csv'], /not both/],
      [['--delay-ms', '10,20', '--rates', '3x896KiB'], /lists 2 values but there are 3 sources/],
      [['--start-cwnd', '10,fast'], /--start-cwnd must be an integer/],
      [['--sctp-sender', 'reno'], /--sctp-sender must be one of usrsctp, loss-tolerant/],
      [['--tcp-cc', 'vegas'], /--tcp-cc must be one of cubic, bbr/],
      [['--sweep', 'tcpCc=cubic,x'], /--tcp-cc must be one of/],
    ];
    for (const [args, pattern] of cases) {
      const r = sim(args);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}, ${r.err}`);
      assert.match(r.err, pattern);
      assert.equal(r.out, '');
    }
  });

  it('--help prints the usage with the acceptance command line', () => {
    const r = sim(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /--mode M/);
    assert.match(r.out, /--sweep AXIS=V1,V2/);
  });

  it('--json prints one object per configuration with the medians', () => {
    const r = sim(['--mode', 'parallel-http', '--rates', '2x896KiB', '--delay-ms', '25', '--loss', '0', '--size', '300KB', '--seeds', '2', '--json']);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 1);
    const o = JSON.parse(lines[0]);
    for (const k of ['mode', 'n', 'goodputBps', 'throughputBps', 'normalizedGoodput', 'runs', 'timeToFirstByteMs', 'duplicates', 'durationMs']) {
      assert.ok(k in o, `missing ${k}`);
    }
    assert.equal(o.mode, 'parallel-http');
    assert.equal(o.n, 2);
    assert.equal(o.runs, 2);
    assert.equal(o.sizeBytes, 300_000);
  });

  it('--sctp-sender and --tcp-cc reach the runs, as flags and as sweep axes', () => {
    const r = sim(['--mode', 'coded', '--size', '100KB', '--seeds', '1', '--json', '--sweep', 'sctpSender=usrsctp,loss-tolerant']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.trim().split('\n').map((l) => JSON.parse(l).sctpSender), ['usrsctp', 'loss-tolerant']);
    const h = sim(['--mode', 'range-http', '--size', '100KB', '--seeds', '1', '--json', '--tcp-cc', 'bbr']);
    assert.equal(h.code, 0, h.err);
    assert.equal(JSON.parse(h.out).tcpCc, 'bbr');
  });

  it('--sweep runs the cross product; --csv has a header', () => {
    const r = sim(['--mode', 'range-http', '--size', '100KB', '--seeds', '1', '--csv', '--sweep', 'n=1,2,3', '--sweep', 'rates=896KiB/1x1792KiB,1x896KiB']);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n');
    assert.match(lines[0], /^mode,n,rates,/);
    assert.equal(lines.length, 1 + 3 * 2);
    assert.deepEqual(lines.slice(1).map((l) => l.split(',')[1]), ['1', '1', '2', '2', '3', '3']);
  });
});
