import { mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseArgs, scenariosOf } from './args';
import { newestCpuProfile } from './gateway';
import { parseJfrText, summarizeJfr } from './jfr';
import { parseStatTicks, parseStatusMemory, readRss, RssSampler } from './proc';
import { CpuProfile, summarizeProfile } from './profile';
import { mergeResults, renderMarkdown, ResultsFile, ScenarioResult, writeResults } from './report';
import { parseDuration, parseSize, quantile, sizeLabel } from './units';
import { parseWarpJson, parseWarpReport, warpArgs } from './warp';

const WARP_PUT = `
Report: PUT. Concurrency: 32. Ran: 28s
 * Average: 4.53 MiB/s, 1159.84 obj/s
 * Reqs: Avg: 27.5ms, 50%: 21.9ms, 90%: 47.3ms, 99%: 112.4ms, Fastest: 1.9ms, Slowest: 1.2s, StdDev: 19.0ms
 * TTFB: Avg: 27ms, Best: 1ms, 25th: 14ms, Median: 21ms, 75th: 33ms, 90th: 47ms, 99th: 112ms, Worst: 1.2s StdDev: 19ms

Throughput, split into 28 x 1s:
 * Fastest: 5.1MiB/s, 1305.51 obj/s
 * 50% Median: 4.6MiB/s, 1172.02 obj/s
 * Slowest: 3.3MiB/s, 856.32 obj/s
`;

describe('units', () => {
  it('parses and prints sizes the way warp spells them', () => {
    expect(parseSize('4KiB')).toBe(4096);
    expect(parseSize('64MiB')).toBe(64 * 1024 ** 2);
    expect(parseSize('2GiB')).toBe(2 * 1024 ** 3);
    expect(parseSize('1000')).toBe(1000);
    expect(() => parseSize('4 parsecs')).toThrow(/not a size/);
    expect(sizeLabel(4096)).toBe('4KiB');
    expect(sizeLabel(2 * 1024 ** 3)).toBe('2GiB');
    expect(sizeLabel(1000)).toBe('1000B');
  });

  it('parses durations and takes nearest-rank quantiles', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('45')).toBe(45_000);
    expect(() => parseDuration('soon')).toThrow();
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe('arguments', () => {
  it('has the issue targets as defaults', () => {
    const a = parseArgs(['small']);
    expect(a).toMatchObject({ command: 'small', smallSize: 4096, smallConcurrency: 32, smallDurationMs: 30_000, largeSize: 64 * 1024 ** 2, memorySize: 2 * 1024 ** 3, client: 'warp', unsignedPayload: true });
    expect(a.largeObjects).toBe(8);
    expect(scenariosOf('all')).toEqual(['small', 'large', 'memory']);
  });

  it('reads options in both spellings and rejects bad ones by name', () => {
    const a = parseArgs(['large', '--duration=10s', '--large-concurrency', '2', '--client', 'both', '--signed-payload', '--profile']);
    expect(a).toMatchObject({ command: 'large', largeDurationMs: 10_000, smallDurationMs: 10_000, largeConcurrency: 2, largeObjects: 4, client: 'both', unsignedPayload: false, profile: true });
    expect(() => parseArgs(['small', '--client', 'curl'])).toThrow(/--client must be one of/);
    expect(() => parseArgs(['small', '--concurrency'])).toThrow(/needs a value/);
    expect(() => parseArgs(['small', '--bogus'])).toThrow(/unknown option/);
    expect(() => parseArgs(['small', 'large'])).toThrow(/one command only/);
    expect(() => parseArgs(['small', '--endpoint', 'http://10.0.0.5:9000', '--access-key', 'a', '--secret-key', 'b'])).toThrow(/loopback/);
    expect(() => parseArgs(['small', '--endpoint', 'http://127.0.0.1:9000'])).toThrow(/--access-key/);
    expect(parseArgs(['--help']).command).toBe('help');
    expect(parseArgs(['small', '--warmup', '0']).warmupMs).toBe(0);
    expect(parseArgs(['small', '--warmup=0s']).warmupMs).toBe(0);
    expect(parseArgs(['small', '--warmup', '5s']).warmupMs).toBe(5000);
  });
});

describe('warp', () => {
  it('parses the text report', () => {
    const r = parseWarpReport(WARP_PUT, 'put')!;
    expect(r).toMatchObject({ op: 'PUT', concurrency: 32, ranSec: 28, objPerSec: 1159.84, errors: 0 });
    expect(r.mibPerSec).toBeCloseTo(4.53);
    expect(r.latencyMs).toEqual({ avg: 27.5, p50: 21.9, p90: 47.3, p99: 112.4, fastest: 1.9, slowest: 1200 });
    expect(r.ttfbMs).toEqual({ avg: 27, p50: 21, p90: 47, p99: 112 });
    expect(parseWarpReport(WARP_PUT, 'get')).toBeUndefined();
    expect(parseWarpReport('Skipping PUT too few samples.', 'put')).toBeUndefined();
  });

  it('parses GiB/s throughput, errors and the JSON totals', () => {
    const text = 'Report: GET. Concurrency: 4. Ran: 1m2s\n * Average: 1.10 GiB/s, 17.6 obj/s\n * Errors: 3\n';
    expect(parseWarpReport(text, 'get')).toMatchObject({ ranSec: 62, mibPerSec: 1.1 * 1024, objPerSec: 17.6, errors: 3 });
    const json = JSON.stringify({ by_op_type: { GET: { total_requests: 10, total_objects: 10, total_errors: 1, total_bytes: 40960, first_errors: ['x'], start_time: 'a', end_time: 'b' } } });
    expect(parseWarpJson(json, 'get')).toEqual({ requests: 10, objects: 10, errors: 1, bytes: 40960, firstErrors: ['x'], startTime: 'a', endTime: 'b' });
  });

  it('pins the flags that keep warp from distorting a 2-core run', () => {
    const args = warpArgs(
      { host: '127.0.0.1:9000', accessKey: 'AK', secretKey: 'SK', region: 'us-east-1' },
      { op: 'get', bucket: 'b', objectSize: '4KiB', concurrent: 32, durationSec: 30, objects: 2500, disableMultipart: true, unsignedPayload: true, benchdata: '/tmp/x' },
    );
    expect(args[0]).toBe('get');
    for (const f of ['--noclear', '--disable-multipart', '--disable-sha256-payload']) expect(args).toContain(f);
    expect(args.join(' ')).toContain('--lookup path');
    expect(args.join(' ')).toContain('--duration 30s');
    expect(args.join(' ')).toContain('--objects 2500');
    expect(args).not.toContain('--autoterm');
    expect(args).not.toContain('--obj.randsize');
    expect(args).not.toContain('--noprefix'); // one prefix per client thread, warp's default
  });

  it('puts every object in the bucket root only when asked (vs-minio --warp-noprefix)', () => {
    const target = { host: '127.0.0.1:9000', accessKey: 'AK', secretKey: 'SK', region: 'us-east-1' };
    const base = { op: 'get' as const, bucket: 'b', objectSize: '4KiB', concurrent: 32, durationSec: 30, disableMultipart: true, unsignedPayload: true, benchdata: '/tmp/x' };
    expect(warpArgs(target, { ...base, noPrefix: true })).toContain('--noprefix');
    expect(warpArgs(target, { ...base, noPrefix: false })).not.toContain('--noprefix');
  });
});

describe('/proc readers', () => {
  it('parses VmRSS/VmHWM and CPU ticks', () => {
    expect(parseStatusMemory('Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n')).toEqual({ rss: 100 * 1024 * 1024, hwm: 200 * 1024 * 1024 });
    expect(parseStatusMemory('Name:\tkthread\n')).toBeUndefined();
    const stat = '1234 (node (main)) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 11 0 100 0 0';
    expect(parseStatTicks(stat)).toBe(300);
    expect(parseStatTicks(stat, true)).toBe(310);
  });

  it('samples this process and keeps the maximum per phase', async () => {
    expect(readRss(process.pid)!.rss).toBeGreaterThan(10 * 1024 * 1024);
    const s = new RssSampler(process.pid, 20).start();
    s.mark('grow');
    const ballast = Buffer.alloc(64 * 1024 * 1024, 1);
    await new Promise((r) => setTimeout(r, 100));
    s.stop();
    expect(ballast[0]).toBe(1);
    expect(s.samples.length).toBeGreaterThan(3);
    expect(s.max('grow')).toBeGreaterThanOrEqual(s.max('start'));
    expect(s.highWaterMark()).toBeGreaterThanOrEqual(s.max());
  });
});

describe('CPU profile summary', () => {
  // root → handle (apps/gateway) → hash (node:crypto), plus idle; 1 ms between samples
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 4] },
      { id: 2, callFrame: { functionName: 'handle', url: `file://${join(__dirname, '../../..')}/apps/gateway/src/s3/s3-server.ts`, lineNumber: 79, columnNumber: 2 }, children: [3] },
      { id: 3, callFrame: { functionName: 'update', url: 'node:internal/crypto/hash', lineNumber: 10, columnNumber: 0 } },
      { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 } },
    ],
    startTime: 1_000_000,
    endTime: 1_010_000,
    samples: [3, 3, 3, 2, 4, 4, 3, 2, 4, 4],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('ranks self time, areas and own-code inclusive time', () => {
    const s = summarizeProfile(profile);
    expect(s.selfByFunction[0]).toMatchObject({ name: 'update', where: 'node:internal/crypto/hash:11' });
    expect(s.selfByFunction[1]).toMatchObject({ name: 'handle', where: 'apps/gateway/src/s3/s3-server.ts:80' });
    expect(s.selfByFunction.find((h) => h.name === '(idle)')).toBeUndefined();
    expect(s.selfByArea.map((a) => a.name)).toEqual(['node:internal/crypto', 'apps/gateway']);
    expect(s.inclusiveOwnCode[0]).toMatchObject({ name: 'handle' });
    expect(s.inclusiveOwnCode[0].pct).toBeCloseTo(100);
    expect(s.busyPct).toBeGreaterThan(50);
  });

  it("picks the newest main-thread profile, not a worker thread's started later", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpuprof-'));
    for (const f of ['CPU.20261206.025315.9885.0.001.cpuprofile', 'CPU.20261206.025323.9885.1.002.cpuprofile', 'notes.txt']) writeFileSync(join(dir, f), '{}');
    expect(newestCpuProfile(dir)).toBe(join(dir, 'CPU.20261206.025315.9885.0.001.cpuprofile'));
    writeFileSync(join(dir, 'CPU.20261206.030000.9999.0.003.cpuprofile'), '{}');
    expect(newestCpuProfile(dir)).toBe(join(dir, 'CPU.20261206.030000.9999.0.003.cpuprofile'));
    expect(newestCpuProfile(join(dir, 'absent'))).toBeUndefined();
  });

  it('counts only the samples inside the window', () => {
    const s = summarizeProfile(profile, 1_000_000, 1_003_500);
    expect(s.selfByFunction).toHaveLength(1);
    expect(s.selfByFunction[0].name).toBe('update');
    expect(s.busyPct).toBe(100);
  });
});

describe('Cassandra JFR summary', () => {
  // Three samples as `jfr print --stack-depth 200 --events jdk.ExecutionSample` writes them.
  const text = `jdk.ExecutionSample {
  startTime = 11:40:33.509
  sampledThread = "ReadStage-1" (javaThreadId = 89)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.apache.cassandra.db.ClusteringComparator.compare(ClusteringPrefix, ClusteringPrefix) line: 190
    org.apache.cassandra.db.SinglePartitionReadCommand.queryMemtableAndDisk(ColumnFamilyStore, ReadExecutionController) line: 780
    org.apache.cassandra.cql3.statements.SelectStatement.execute(QueryState, QueryOptions, Dispatcher$RequestTime) line: 340
    ...
  ]
}

jdk.ExecutionSample {
  startTime = 11:40:34.001
  sampledThread = "Native-Transport-Requests-2" (javaThreadId = 91)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.apache.cassandra.db.memtable.SkipListMemtable.put(PartitionUpdate, UpdateTransaction, OpOrder$Group) line: 130
    org.apache.cassandra.db.Keyspace.applyInternal(Mutation, boolean, boolean, boolean, boolean, Promise) line: 620
    org.apache.cassandra.db.Keyspace.apply(Mutation, boolean) line: 480
    org.apache.cassandra.cql3.statements.BatchStatement.execute(QueryState, QueryOptions, Dispatcher$RequestTime) line: 400
  ]
}

jdk.ExecutionSample {
  startTime = 11:40:36.250
  sampledThread = "CompactionExecutor:1" (javaThreadId = 120)
  state = "STATE_RUNNABLE"
  stackTrace = [
    org.apache.cassandra.db.ClusteringComparator.compare(ClusteringPrefix, ClusteringPrefix) line: 190
  ]
}
`;
  const day = new Date(2026, 11, 6);
  const at = (h: number, m: number, s: number, ms: number) => new Date(2026, 11, 6, h, m, s, ms).getTime();

  it('parses the samples: local time of the day given, thread, frames innermost first', () => {
    const samples = parseJfrText(text.split('\n'), day);
    expect(samples).toHaveLength(3);
    expect(samples[0]).toMatchObject({ wallMs: at(11, 40, 33, 509), thread: 'ReadStage-1' });
    expect(samples[0]!.frames).toHaveLength(3);
    expect(samples[0]!.frames[0]).toMatch(/^org\.apache\.cassandra\.db\.ClusteringComparator\.compare\(/);
    expect(samples[2]).toMatchObject({ wallMs: at(11, 40, 36, 250), thread: 'CompactionExecutor:1' });
  });

  it('buckets the samples of a window by the kind of Cassandra work, first match wins', () => {
    const samples = parseJfrText(text.split('\n'), day);
    const all = summarizeJfr(samples);
    expect(all.samples).toBe(3);
    expect(all.buckets.map((b) => b.name)).toEqual([
      'compaction',
      'read: local read (memtables, sstables, its response)',
      'write: memtable and commit log',
    ]);
    expect(all.topFrames[0]).toMatchObject({ name: 'ClusteringComparator.compare' });
    expect(all.topFrames[0]!.pct).toBeCloseTo(200 / 3);
    const window = summarizeJfr(samples, at(11, 40, 34, 0), at(11, 40, 35, 0));
    expect(window.samples).toBe(1);
    expect(window.buckets).toEqual([{ name: 'write: memtable and commit log', pct: 100 }]);
  });
});

describe('results file', () => {
  const scenario = (over: Partial<ScenarioResult>): ScenarioResult => ({
    name: 'small',
    title: 'small — 4KiB objects',
    profiled: false,
    startedAt: '2026-11-30T00:00:00Z',
    command: 'npm run bench -- small',
    commit: 'abc123',
    measurements: [{ label: 'PUT', client: 'warp', op: 'PUT', objectSize: 4096, concurrency: 32, seconds: 28, requests: 30000, errors: 0, objPerSec: 1100, mibPerSec: 4.3, latencyMs: { avg: 20, p50: 15, p90: 40, p99: 95 } }],
    checks: [{ what: 'PUT objects/s (warp)', target: '≥ 1000', measured: '1100.0', pass: true }],
    cpu: [{ phase: 'PUT', seconds: 30, machineBusyPct: 99, perProcess: { gateway: 120, cassandra: 50 } }],
    notes: ['a note'],
    raw: [{ label: 'warp put', text: 'Report: PUT ```' }],
    ...over,
  });
  const base = { date: '2026-11-30', machine: { nproc: 2, cpuModel: 'Xeon', memory: '24 GiB', os: 'Debian', node: 'v20', java: 'openjdk 17' }, tools: { warp: 'v1.6.1' } };

  it('keeps the newest run per scenario and the profiled run apart', () => {
    let r: ResultsFile = mergeResults(undefined, base, scenario({}));
    r = mergeResults(r, base, scenario({ name: 'memory', title: 'memory' }));
    r = mergeResults(r, base, scenario({ startedAt: 'later' }));
    r = mergeResults(r, base, scenario({ profiled: true }));
    r = mergeResults(r, base, scenario({ variant: 'BLOCK_STORE=cassandra' }));
    expect(Object.keys(r.scenarios).sort()).toEqual(['memory', 'small', 'small [BLOCK_STORE=cassandra]', 'small:profiled']);
    expect(r.scenarios.small.startedAt).toBe('later');
  });

  it('renders machine, summary, pass/fail, CPU split and collapsed raw output', () => {
    const md = renderMarkdown(mergeResults(undefined, base, scenario({ checks: [{ what: 'GET p99', target: '< 100 ms', measured: '120 ms', pass: false }] })), '## Analysis\n\nhand-written');
    expect(md).toContain('# Gateway benchmark — 2026-11-30');
    expect(md).toContain('| CPU | 2 × Xeon |');
    expect(md).toContain('| small | GET p99 | < 100 ms | 120 ms | **FAIL** |');
    expect(md).toContain('## Analysis');
    expect(md).toContain('| phase | s | gateway | cassandra | machine busy |');
    expect(md).toContain('<details><summary>Raw tool output</summary>');
    expect(md).toContain('````text\nReport: PUT ```\n````'); // a fence longer than any backtick run inside
  });

  it('writes the JSON and the Markdown side by side', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    writeResults(join(dir, 'r.json'), join(dir, 'r.md'), mergeResults(undefined, base, scenario({})));
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')).scenarios.small.name).toBe('small');
    expect(readFileSync(join(dir, 'r.md'), 'utf8')).toContain('PASS');
  });
});
