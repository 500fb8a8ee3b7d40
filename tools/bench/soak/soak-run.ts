/**
 * `npm run bench -- soak [--minutes 30] [--max-duration 30s] [--concurrency 32] [--keys 2000]
 * [--fraction 0.5] [--rate N] [--interval 10s] [--label L] [gateway options]`: the gateway
 * (compiled, started as the other benches start it, on the stack that OSTORE_STACK_DIR and the
 * OSTORE_*_PORT variables name) under a mixed load (70 % GET, 25 % PUT of 4–64 KiB, 5 % DELETE,
 * AWS SDK v3): first as fast as `--concurrency` clients go for `--max-duration` (the maximum),
 * then paced at `--fraction` of that maximum for `--minutes`, sampled every `--interval`: gateway
 * RSS, its socket descriptors and ESTABLISHED TCP on the S3 port, its event-loop lag (prom-client's
 * nodejs_eventloop_lag_p99_seconds), requests, errors and the load average. The record goes to
 * tools/bench/results/<date>-soak.md (rewritten every minute, so an interrupted run keeps what it
 * measured). Exit 0 when every check of series.ts holds, 1 when one does not, 2 on bad arguments.
 */
import { loadavg } from 'os';
import { join } from 'path';
import { Bench, BENCH_DIR, localDate, log, REGION, sleep, WORK_DIR } from '../harness/bench';
import { Environment, startEnvironment } from '../harness/environment';
import { parseArgs, takeOption } from '../lib/args';
import { CpuMeter, readRss } from '../lib/proc';
import { ensureBucket, sdkClient } from '../lib/sdk-load';
import { parseDuration } from '../lib/units';
import { DEFAULT_MIX, LoadCounters, MixedLoad, Pacer, runMix } from './mixed-load';
import { HeapSnapshots, heapSnapshotNodeOptions } from './heap-snapshots';
import { countSeries, countSocketFds, establishedOnPort, promGauge, residentParts } from './process-probes';
import { DEFAULT_BOUNDS, SoakBounds, soakChecks, SoakSample, windowsFor } from './series';
import { SoakRecord, writeSoakRecord } from './soak-report';

interface Options {
  minutes: number;
  maxMs: number;
  concurrency: number;
  /** Workers of the paced phase (the most requests in flight). */
  soakConcurrency: number;
  keys: number;
  fraction: number;
  rate?: number;
  intervalMs: number;
  label?: string;
  /** Heap snapshots of the gateway at these seconds of the paced phase (a diagnostic run). */
  heapSnapshotsAt: number[];
  bounds: SoakBounds;
}

function positive(flag: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: a positive number, got ${v}`);
  return n;
}

function parseOptions(argv: string[]): Options {
  const o: Options = {
    minutes: positive('--minutes', takeOption(argv, '--minutes'), 30),
    maxMs: parseDuration(takeOption(argv, '--max-duration') ?? '30s'),
    concurrency: positive('--concurrency', takeOption(argv, '--concurrency'), 32),
    soakConcurrency: positive('--soak-concurrency', takeOption(argv, '--soak-concurrency'), 32),
    keys: positive('--keys', takeOption(argv, '--keys'), 2000),
    fraction: positive('--fraction', takeOption(argv, '--fraction'), 0.5),
    intervalMs: parseDuration(takeOption(argv, '--interval') ?? '10s'),
    label: takeOption(argv, '--label'),
    heapSnapshotsAt: (takeOption(argv, '--heap-snapshots') ?? '')
      .split(',')
      .filter(Boolean)
      .map((v) => positive('--heap-snapshots', v, 0)),
    bounds: { ...DEFAULT_BOUNDS },
  };
  const rate = takeOption(argv, '--rate');
  if (rate !== undefined) o.rate = positive('--rate', rate, 1);
  o.bounds.rssGrowth = positive('--max-rss-growth', takeOption(argv, '--max-rss-growth'), o.bounds.rssGrowth);
  o.bounds.lagP99Ms = positive('--max-lag-p99-ms', takeOption(argv, '--max-lag-p99-ms'), o.bounds.lagP99Ms);
  if (o.label !== undefined && !/^[A-Za-z0-9_-]+$/.test(o.label)) throw new Error(`--label: letters, digits, - and _ only, got ${o.label}`);
  if (o.fraction > 1) throw new Error(`--fraction: at most 1, got ${o.fraction}`);
  return o;
}

/**
 * The load's client closes a keep-alive socket idle for 60 s, before the gateway's 65 s
 * keep-alive timeout: a client that keeps it open exactly as long may reuse it at the moment the
 * gateway closes it (ECONNRESET: seen in a 2-minute debug run), a race that AWS SDK defaults
 * retry away and this load, with one attempt per request, would count as errors.
 */
const IDLE_SOCKET_MS = 60_000;

/** The variables that chose the stack, as a command prefix (the default stack when none is set). */
function stackEnv(): string {
  const names = ['OSTORE_CASSANDRA_HEAP', 'OSTORE_STACK_DIR', 'OSTORE_CASSANDRA_PORT', 'OSTORE_CASSANDRA_STORAGE_PORT', 'OSTORE_KAFKA_PORT', 'OSTORE_KAFKA_CONTROLLER_PORT'];
  const set = names.filter((n) => process.env[n] !== undefined).map((n) => `${n}=${process.env[n]}`);
  return set.length ? set.join(' ') : 'the default stack (<repo>/.stack)';
}

/** One sample of the gateway process, its lag gauges and the window's counters. */
async function sample(env: Environment, s3Port: number, t0: number, counters: LoadCounters, intervalSec: number): Promise<SoakSample> {
  const pid = env.target.gatewayPid!;
  const metrics = (await env.target.metrics?.()) ?? '';
  const w = counters.take();
  const ms = (name: string) => promGauge(metrics, name) * 1000;
  const mib = (name: string) => promGauge(metrics, name) / 1024 ** 2;
  const parts = residentParts(pid);
  const rssMiB = (readRss(pid)?.rss ?? NaN) / 1024 ** 2;
  const newSpaceMiB = promGauge(metrics, 'nodejs_heap_space_size_total_bytes', 'space="new"') / 1024 ** 2;
  return {
    tSec: Math.round((Date.now() - t0) / 100) / 10,
    rssMiB,
    newSpaceMiB,
    rssLessNewMiB: rssMiB - newSpaceMiB,
    rssAnonMiB: (parts?.anon ?? NaN) / 1024 ** 2,
    rssFileMiB: (parts?.file ?? NaN) / 1024 ** 2,
    brkMiB: (parts?.brk ?? NaN) / 1024 ** 2,
    heapUsedMiB: mib('nodejs_heap_size_used_bytes'),
    heapTotalMiB: mib('nodejs_heap_size_total_bytes'),
    externalMiB: mib('nodejs_external_memory_bytes'),
    metricSeries: countSeries(metrics),
    fdSockets: countSocketFds(pid) ?? NaN,
    tcpEstablished: establishedOnPort(s3Port),
    lagP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
    lagMaxMs: ms('nodejs_eventloop_lag_max_seconds'),
    lagMeanMs: ms('nodejs_eventloop_lag_mean_seconds'),
    requests: w.requests,
    errors: w.errors,
    requestsPerSec: w.requests / intervalSec,
    clientP99Ms: w.p99Ms,
    load1: loadavg()[0],
  };
}

export async function main(argvIn: string[]): Promise<number> {
  const argv = [...argvIn];
  let o: Options;
  try {
    o = parseOptions(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const bench = new Bench(parseArgs(['small', ...argv]), ['soak', ...argvIn]);
  const snapshotDir = join(WORK_DIR, bench.runStamp, 'heap');
  if (o.heapSnapshotsAt.length) bench.args.gatewayEnv.NODE_OPTIONS = heapSnapshotNodeOptions(snapshotDir);
  if (bench.args.endpoint && !bench.args.gatewayPid) throw new Error('soak with --endpoint needs --gateway-pid (RSS and sockets are read from /proc)');
  const env = await startEnvironment(bench);
  const stop = () => {
    log('interrupted: stopping what this run started');
    void env.teardown().finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const watchdog = setTimeout(() => {
    log('watchdog: the soak ran 20 minutes past its length');
    stop();
  }, (o.minutes + 20) * 60_000);
  watchdog.unref();

  const out = join(bench.args.out ?? join(BENCH_DIR, 'results'), `${localDate()}-soak${o.label ? `.${o.label}` : ''}.md`);
  const t = env.target;
  const s3Port = Number(new URL(t.endpoint).port);
  const client = sdkClient({ endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey }, Math.max(o.concurrency, o.soakConcurrency), 60_000, IDLE_SOCKET_MS);
  const record: SoakRecord = {
    command: bench.commandLine,
    startedAt: new Date().toISOString(),
    gateway: env.tools['gateway'] ?? t.label,
    cassandra: env.tools['cassandra'],
    stack: { heap: process.env.OSTORE_CASSANDRA_HEAP ?? '2G (default)', env: stackEnv() },
    options: { minutes: o.minutes, maxSec: o.maxMs / 1000, concurrency: o.concurrency, soakConcurrency: o.soakConcurrency, keys: o.keys, fraction: o.fraction, intervalSec: o.intervalMs / 1000 },
    mix: DEFAULT_MIX,
    bounds: o.bounds,
    loadStart: loadavg(),
    samples: [],
    checks: [],
  };
  try {
    const bucket = `soak-${bench.bucketTag}`;
    await ensureBucket(client, bucket);
    const load = new MixedLoad(client, bucket, DEFAULT_MIX, o.keys);
    const fillCounters = new LoadCounters();
    log(`filling ${o.keys} keys (4–64 KiB, not measured)`);
    await load.fill(16, fillCounters);
    record.fill = { requests: fillCounters.requests, errors: fillCounters.errors, firstErrors: fillCounters.firstErrors };

    log(`maximum: ${o.concurrency} clients, unpaced, ${o.maxMs / 1000} s`);
    const maxCounters = new LoadCounters();
    const cpu = new CpuMeter(t.pids).start();
    const maxStart = performance.now();
    await runMix(load, maxCounters, { concurrency: o.concurrency, until: () => performance.now() - maxStart >= o.maxMs, sleep });
    const maxSec = (performance.now() - maxStart) / 1000;
    const cpuUse = cpu.stop();
    record.max = {
      seconds: maxSec,
      requests: maxCounters.requests,
      errors: maxCounters.errors,
      perSec: maxCounters.requests / maxSec,
      byKind: { ...maxCounters.byKind },
      latencyMs: maxCounters.latencySummary(),
      cpuPct: cpuUse.perProcess,
      load1: loadavg()[0],
      firstErrors: maxCounters.firstErrors,
    };
    log(`maximum: ${record.max.perSec.toFixed(1)} requests/s, ${maxCounters.errors} errors`);

    const rate = o.rate ?? record.max.perSec * o.fraction;
    const soakMs = o.minutes * 60_000;
    const counters = new LoadCounters();
    const pacer = new Pacer(rate, () => performance.now());
    record.soak = { targetRate: rate, requests: 0, errors: 0, seconds: 0, achievedRate: 0, skipped: 0, byKind: counters.byKind, firstErrors: counters.firstErrors, errorsByName: {} };
    log(`soak: ${rate.toFixed(1)} requests/s for ${o.minutes} min, a sample every ${o.intervalMs / 1000} s → ${out}`);
    const t0 = Date.now();
    const soakStart = performance.now();
    const snapshots = new HeapSnapshots(t.gatewayPid!, snapshotDir, sleep);
    const snapshotsDue = [...o.heapSnapshotsAt].sort((a, b) => a - b);
    record.heapSnapshots = snapshots.taken;
    let done = false;
    const loadDone = runMix(load, counters, { concurrency: o.soakConcurrency, until: () => done || performance.now() - soakStart >= soakMs, pacer, sleep }).then(() => {
      done = true;
    });
    const writeNow = () => {
      const soak = record.soak!;
      soak.seconds = (performance.now() - soakStart) / 1000;
      soak.requests = counters.requests;
      soak.errors = counters.errors;
      soak.achievedRate = counters.requests / soak.seconds;
      soak.skipped = pacer.skipped;
      soak.errorsByName = Object.fromEntries(counters.errorsByName);
      record.loadEnd = loadavg();
      writeSoakRecord(out, record);
    };
    // the samples follow a fixed schedule from the start (t0 + k·interval), whatever a scrape costs
    for (let k = 1; !done; k++) {
      const due = soakStart + k * o.intervalMs;
      while (!done && performance.now() < due) await Promise.race([sleep(Math.min(1000, due - performance.now())), loadDone]);
      if (done && performance.now() < due - o.intervalMs / 2) break;
      const s = await sample(env, s3Port, t0, counters, o.intervalMs / 1000);
      record.samples.push(s);
      while (snapshotsDue.length && s.tSec >= snapshotsDue[0]) {
        snapshotsDue.shift();
        log(`heap snapshot at ${s.tSec} s: ${await snapshots.take(s.tSec)}`);
      }
      if (k % Math.max(1, Math.round(60_000 / o.intervalMs)) === 0) {
        log(`soak ${s.tSec}s: ${s.requestsPerSec.toFixed(1)} req/s, errors ${counters.errors}, RSS ${s.rssMiB.toFixed(1)} MiB, sockets ${s.fdSockets}/${s.tcpEstablished}, lag p99 ${s.lagP99Ms.toFixed(1)} ms, load ${s.load1.toFixed(2)}`);
        writeNow();
      }
    }
    await loadDone;
    writeNow();
    const w = windowsFor(record.soak.seconds);
    record.windows = w;
    record.checks = soakChecks(record.samples, w, o.bounds, { errors: counters.errors, maxPhaseErrors: maxCounters.errors + fillCounters.errors, targetRate: rate, achievedRate: record.soak.achievedRate });
    writeSoakRecord(out, record);
    const failed = record.checks.filter((c) => !c.pass);
    for (const c of record.checks) log(`${c.pass ? 'PASS' : 'FAIL'} ${c.what}: ${c.measured} (bound ${c.bound})`);
    log(`record: ${out}`);
    return failed.length ? 1 : 0;
  } finally {
    clearTimeout(watchdog);
    client.destroy();
    await env.teardown();
  }
}
