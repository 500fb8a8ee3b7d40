import { createServer, Server } from 'net';
import { chooseOp, DEFAULT_MIX, KeyPool, LoadCounters, Pacer } from './mixed-load';
import { countEstablished, countSeries, countSocketFds, parseResidentParts, promGauge } from './process-probes';
import { DEFAULT_BOUNDS, leastSquaresSlope, soakChecks, SoakSample, summarizeSeries, windowsFor } from './series';

function samples(n: number, f: (t: number) => Partial<SoakSample>): SoakSample[] {
  return Array.from({ length: n }, (_, i) => {
    const tSec = (i + 1) * 10;
    return { tSec, rssMiB: 120, newSpaceMiB: 16, rssLessNewMiB: 104, rssAnonMiB: 80, rssFileMiB: 40, brkMiB: 10, heapUsedMiB: 40, heapTotalMiB: 60, externalMiB: 5, metricSeries: 300, fdSockets: 40, tcpEstablished: 32, lagP99Ms: 20, lagMaxMs: 30, lagMeanMs: 11, requests: 500, errors: 0, requestsPerSec: 50, clientP99Ms: 40, load1: 8, ...f(tSec) };
  });
}

const run = { errors: 0, maxPhaseErrors: 0, targetRate: 50, achievedRate: 49 };

describe('soak series', () => {
  it('fits the slope of a line and refuses fewer than two points', () => {
    expect(leastSquaresSlope([0, 1, 2, 3].map((x) => ({ x, y: 5 + 2 * x })))).toBeCloseTo(2);
    expect(leastSquaresSlope([{ x: 1, y: 1 }])).toBeNaN();
  });

  it('compares 5-minute windows after a 2-minute warm-up, scaled down for short runs', () => {
    expect(windowsFor(1800)).toEqual({ warmupSec: 120, windowSec: 300, endSec: 1800 });
    expect(windowsFor(120)).toEqual({ warmupSec: 30, windowSec: 45, endSec: 120 });
  });

  it('reads the young generation as the bounded step it is: RSS less it is what must stay flat', () => {
    const step = samples(180, (t) => ({ rssMiB: t < 900 ? 110 : 134, newSpaceMiB: t < 900 ? 8 : 32, rssLessNewMiB: 102 }));
    const checks = soakChecks(step, windowsFor(1800), DEFAULT_BOUNDS, run);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(checks[1].measured).toContain('RSS itself 110.0 → 134.0 MiB');
    const leak = samples(180, (t) => ({ rssMiB: 110 + t / 30, newSpaceMiB: 32, rssLessNewMiB: 78 + t / 30 }));
    expect(soakChecks(leak, windowsFor(1800), DEFAULT_BOUNDS, run).filter((c) => !c.pass).map((c) => c.what.split(' ')[0])).toEqual(['gateway']);
  });

  it('passes a flat run of 30 minutes', () => {
    const s = samples(180, (t) => ({ rssMiB: 120 + (t % 20 === 0 ? 3 : -3) }));
    const checks = soakChecks(s, windowsFor(1800), DEFAULT_BOUNDS, run);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(summarizeSeries(s, 'rssMiB', windowsFor(1800)).slopePer10Min).toBeCloseTo(0, 1);
  });

  it('fails growing RSS, growing sockets, a late lag spike, any error and a missed rate', () => {
    const s = samples(180, (t) => ({ rssMiB: 100 + t / 30, rssLessNewMiB: 84 + t / 30, newSpaceMiB: t > 1000 ? 64 : 16, heapUsedMiB: 30 + t / 60, fdSockets: 40 + t / 60, lagP99Ms: t > 1600 ? 1200 : 20, errors: t === 900 ? 1 : 0 }));
    const failed = soakChecks(s, windowsFor(1800), DEFAULT_BOUNDS, { ...run, errors: 1, achievedRate: 30 })
      .filter((c) => !c.pass)
      .map((c) => c.what.split(' ')[0]);
    expect(failed).toEqual(['errors', 'gateway', 'V8', 'gateway', 'gateway', 'event-loop', 'event-loop', 'request']);
    expect(summarizeSeries(s, 'rssMiB', windowsFor(1800)).slopePer10Min).toBeCloseTo(20);
  });

  it('counts a fill or maximum-phase error against the run', () => {
    const checks = soakChecks(samples(180, () => ({})), windowsFor(1800), DEFAULT_BOUNDS, { ...run, maxPhaseErrors: 2 });
    expect(checks[0]).toMatchObject({ pass: false, measured: '2 (max phase 2, soak 0)' });
  });
});

describe('soak probes', () => {
  it('counts ESTABLISHED rows on the local port only', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1',
      '   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1',
      '   2: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 3 1',
      '   3: 0100007F:1F90 0100007F:C351 06 00000000:00000000 00:00000000 00000000     0        0 4 1',
    ].join('\n');
    expect(countEstablished(table, 8080)).toBe(1);
    expect(countEstablished(table, 50000)).toBe(1);
  });

  it('reads RssAnon, RssFile and the resident [heap] mapping', () => {
    const status = 'VmRSS:\t  120 kB\nRssAnon:\t   80 kB\nRssFile:\t   40 kB\n';
    const smaps = ['00400000-00500000 r-xp 00000000 08:01 1 /usr/bin/node', 'Rss:  100 kB', '01000000-02000000 rw-p 00000000 00:00 0  [heap]', 'Size: 9 kB', 'Rss:  12 kB', '7f00-7f01 rw-p 00000000 00:00 0', 'Rss:  30 kB'].join('\n');
    expect(parseResidentParts(status, smaps)).toEqual({ anon: 80 * 1024, file: 40 * 1024, brk: 12 * 1024 });
  });

  it('reads a gauge whatever its labels', () => {
    const text = '# HELP nodejs_eventloop_lag_p99_seconds x\n# TYPE nodejs_eventloop_lag_p99_seconds gauge\nnodejs_eventloop_lag_p99_seconds{app="gateway"} 0.0123\nnodejs_eventloop_lag_max_seconds 0.5\n';
    expect(promGauge(text, 'nodejs_eventloop_lag_p99_seconds')).toBe(0.0123);
    expect(promGauge(text, 'nodejs_eventloop_lag_max_seconds')).toBe(0.5);
    expect(promGauge(text, 'nodejs_eventloop_lag_p90_seconds')).toBeNaN();
    const spaces = 'nodejs_heap_space_size_total_bytes{space="read_only",app="gateway"} 0\nnodejs_heap_space_size_total_bytes{space="new",app="gateway"} 33554432\n';
    expect(promGauge(spaces, 'nodejs_heap_space_size_total_bytes', 'space="new"')).toBe(33554432);
    expect(promGauge(spaces, 'nodejs_heap_space_size_total_bytes', 'space="old"')).toBeNaN();
    expect(countSeries(text)).toBe(2);
  });

  it('sees a listening socket of this process among its descriptors', async () => {
    const before = countSocketFds(process.pid)!;
    const server: Server = await new Promise((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => res(s));
    });
    try {
      expect(countSocketFds(process.pid)).toBe(before + 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(countSocketFds(2 ** 22 + 7)).toBeUndefined();
  });
});

describe('soak load', () => {
  it('splits draws 70 / 25 / 5', () => {
    expect([0, 0.6999, 0.7, 0.9499, 0.95, 0.9999].map((r) => chooseOp(r, DEFAULT_MIX))).toEqual(['GET', 'GET', 'PUT', 'PUT', 'DELETE', 'DELETE']);
  });

  it('paces starts and drops, not bursts, the starts missed in a stall', () => {
    let now = 1000;
    const sut = new Pacer(10, () => now);
    expect([sut.reserve(), sut.reserve(), sut.reserve()]).toEqual([0, 100, 200]);
    now += 5000;
    expect(sut.reserve()).toBe(0);
    expect(sut.skipped).toBe(47);
    expect(sut.reserve()).toBe(100);
  });

  it('gives a key to one request at a time and reads only acknowledged keys', () => {
    const sut = new KeyPool(1, () => 0);
    expect(sut.take(true)).toBeUndefined();
    expect(sut.take(false)).toBe(0);
    expect(sut.take(false)).toBeUndefined();
    expect(sut.claim(0)).toBe(false);
    sut.set(0, { size: 1, md5: 'x' });
    sut.release(0);
    expect(sut.take(true)).toBe(0);
    expect(sut.count()).toBe(1);
  });

  it('counts a window and resets it, keeping the totals', () => {
    const sut = new LoadCounters();
    sut.ok('GET', 5);
    sut.fail('PUT', 'TimeoutError: - socket hang up');
    expect(sut.take()).toEqual({ requests: 2, errors: 1, p99Ms: 5 });
    expect(sut.take()).toMatchObject({ requests: 0, errors: 0 });
    expect({ requests: sut.requests, errors: sut.errors, byName: Object.fromEntries(sut.errorsByName) }).toEqual({ requests: 2, errors: 1, byName: { 'PUT TimeoutError': 1 } });
  });
});
