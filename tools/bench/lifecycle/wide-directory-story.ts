import { ChildProcess, spawn } from 'child_process';
import { createWriteStream, mkdirSync } from 'fs';
import { dirname, resolve } from 'path';
import { Readable } from 'stream';
import {
  CreateBucketCommand,
  ListObjectsV2Command,
  ListObjectsV2CommandOutput,
  PutBucketLifecycleConfigurationCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { lifecycleTiming } from '@ostore/lifecycle/rules';
import { createLocalScan, createLocalScanClient, localScanSpans, ScanMetrics } from '@ostore/lifecycle/scan';
import { KafkaClient, KafkaQueueProducer } from '@ostore/queue/data-access';
import { Owner, S3Core } from '@ostore/s3/core';
import { CassandraClient, CassandraOptions } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import { MetricsRegistry } from '@ostore/shared/observability';
import { coreOver } from './bench-core';

export { coreOver };

/**
 * The wide-directory story (issue 4), shared by the bench (wide-directory.mjs) and its spec
 * (wide-directory.wide-spec.ts): ONE directory `wide/` with N objects, a fraction of which a
 * lifecycle rule expires, laid out either
 *
 * - `interleaved`: `wide/obj-<i>`, every 10th kept (size filter: expiring bodies are 100 bytes,
 *   kept ones 200, rule `ObjectSizeLessThan 150`), so the deleted keys are scattered and a page
 *   of live keys has ~9 tombstones between two of them;
 * - `contiguous`: `wide/exp-<i>` (the first 90 %, rule `Prefix wide/exp-`) then `wide/keep-<i>`,
 *   so the deletions leave one run of 180,000 adjacent row tombstones in the directory's
 *   partition — more than Cassandra's tombstone_failure_threshold (100,000) in one read.
 */
export type Layout = 'interleaved' | 'contiguous';

const DAY_SECONDS = 1;
const pad = (i: number) => String(i).padStart(6, '0');

export interface WideKey {
  key: string;
  expires: boolean;
  size: number;
}

/** The keys of the directory in S3 (UTF-8) order, and which ones the rule expires. */
export function wideKeys(layout: Layout, n: number, deleteFraction = 0.9): WideKey[] {
  const keep = 1 - deleteFraction;
  if (layout === 'contiguous') {
    const expiring = Math.round(n * deleteFraction);
    return Array.from({ length: n }, (_, i) =>
      i < expiring
        ? { key: `wide/exp-${pad(i)}`, expires: true, size: 100 }
        : { key: `wide/keep-${pad(i)}`, expires: false, size: 200 },
    );
  }
  return Array.from({ length: n }, (_, i) => {
    const kept = Math.floor((i + 1) * keep) > Math.floor(i * keep);
    return { key: `wide/obj-${pad(i)}`, expires: !kept, size: kept ? 200 : 100 };
  });
}

/**
 * Creates the story's bucket through S3 with its lifecycle rule: Days=1 on `wide/exp-` keys
 * (contiguous) or on bodies under 150 bytes (interleaved).
 */
export async function createWideBucket(s3: S3Client, bucket: string, layout: Layout): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(
    new PutBucketLifecycleConfigurationCommand({
      Bucket: bucket,
      LifecycleConfiguration: {
        Rules: [
          {
            ID: 'wide',
            Status: 'Enabled',
            Filter: layout === 'contiguous' ? { Prefix: 'wide/exp-' } : { ObjectSizeLessThan: 150 },
            Expiration: { Days: 1 },
          },
        ],
      },
    }),
  );
}

/**
 * PutObject of every key through the S3 core (ObjectsService.put: the same metastore writes the
 * gateway makes, without HTTP and SigV4), `concurrency` at a time. Bodies are inline (< 64 KiB).
 */
export async function writeObjects(
  core: S3Core,
  bucket: string,
  owner: Owner,
  keys: WideKey[],
  concurrency: number,
  progress?: (done: number) => void,
): Promise<{ seconds: number; perSecond: number }> {
  const bodies = new Map<number, Buffer>();
  const bodyOf = (size: number) => bodies.get(size) ?? bodies.set(size, Buffer.alloc(size, 0x61)).get(size)!;
  let next = 0;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < keys.length) {
        const k = keys[next++];
        await core.objects.put({
          bucket,
          key: k.key,
          owner,
          body: Readable.from([bodyOf(k.size)], { objectMode: false }),
          meta: { userMeta: {} },
        });
        if (++done % 20_000 === 0) progress?.(done);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, perSecond: keys.length / seconds };
}

export interface Timed {
  ms?: number;
  keys?: number;
  error?: string;
}

export interface ListingResult {
  /** ListObjectsV2 prefix `wide/`, delimiter '/', 1000 keys: best and median of 3. */
  first: Timed & { medianMs?: number };
  /** The same from the middle of the original directory (StartAfter). */
  middle: Timed & { medianMs?: number; startAfter: string };
  /** Every page of the directory (continuation tokens): pages, keys, total and slowest page. */
  walk: { ms?: number; pages: number; keys: string[]; slowestPageMs: number; error?: string };
}

async function timedList(
  s3: S3Client,
  input: ListObjectsV2Command['input'],
): Promise<{ ms: number; out?: ListObjectsV2CommandOutput; error?: string }> {
  const t = performance.now();
  try {
    const out = await s3.send(new ListObjectsV2Command(input));
    return { ms: performance.now() - t, out };
  } catch (e) {
    const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    return {
      ms: performance.now() - t,
      error: `${err.$metadata?.httpStatusCode ?? ''} ${err.name}: ${err.message}`.trim(),
    };
  }
}

async function repeated(
  s3: S3Client,
  input: ListObjectsV2Command['input'],
  times = 3,
): Promise<Timed & { medianMs?: number }> {
  const ms: number[] = [];
  let keys = 0;
  for (let i = 0; i < times; i++) {
    const r = await timedList(s3, input);
    if (r.error) return { ms: r.ms, error: r.error };
    ms.push(r.ms);
    keys = (r.out!.Contents ?? []).length + (r.out!.CommonPrefixes ?? []).length;
  }
  ms.sort((a, b) => a - b);
  return { ms: ms[0], medianMs: ms[Math.floor(ms.length / 2)], keys };
}

/** The three listing measurements of `wide/` through a gateway (an S3 client with no retries). */
export async function measureListings(
  s3: S3Client,
  bucket: string,
  middleAfter: string,
): Promise<ListingResult> {
  const base = { Bucket: bucket, Prefix: 'wide/', Delimiter: '/', MaxKeys: 1000 };
  const first = await repeated(s3, base);
  const middle = { ...(await repeated(s3, { ...base, StartAfter: middleAfter })), startAfter: middleAfter };
  const walk: ListingResult['walk'] = { pages: 0, keys: [], slowestPageMs: 0 };
  const t0 = performance.now();
  let token: string | undefined;
  for (;;) {
    const r = await timedList(s3, { ...base, ContinuationToken: token });
    walk.slowestPageMs = Math.max(walk.slowestPageMs, r.ms);
    if (r.error) {
      walk.error = `page ${walk.pages + 1}: ${r.error}`;
      break;
    }
    walk.pages++;
    for (const c of r.out!.Contents ?? []) walk.keys.push(c.Key!);
    if (!r.out!.IsTruncated) {
      walk.ms = performance.now() - t0;
      break;
    }
    token = r.out!.NextContinuationToken;
  }
  return { first, middle, walk };
}

/** One lifecycle pass of the versions table by the local scanner, wired as the scanner app wires it. */
export async function scanOnce(o: {
  cassandra: CassandraOptions;
  db: CassandraClient;
  nodeAddress: string;
  kafka: KafkaClient;
  source: string;
  fetchSize?: number;
}): Promise<{ seconds: number; rows: number; objects: number; candidates: number }> {
  const { client: scanClient, policy } = await createLocalScanClient(o.cassandra, o.nodeAddress);
  await scanClient.connect();
  try {
    const { spans } = await localScanSpans(scanClient, o.cassandra.keyspace, policy.addresses);
    const scan = createLocalScan({
      scanClient,
      db: o.db,
      producer: new KafkaQueueProducer(o.kafka),
      clock: new SystemClock(),
      metrics: new ScanMetrics(new MetricsRegistry('bench', false)),
      log: { info: () => undefined, warn: (m, f) => console.warn(m, JSON.stringify(f)) },
      settings: {
        source: o.source,
        keyspace: o.cassandra.keyspace,
        hostIndex: 0,
        fetchSize: o.fetchSize ?? 2000,
        rowsPerSecond: 0,
        checkpointMs: 10_000,
        publishBatch: 500,
      },
      timing: lifecycleTiming(DAY_SECONDS),
      overdueGraceMs: 86_400_000,
    });
    const t = performance.now();
    const r = await scan.scanner.run(scan.tasks.get('versions')!, spans, new AbortController().signal);
    return {
      seconds: (performance.now() - t) / 1000,
      rows: r.stats.rows,
      objects: r.stats.objects,
      candidates: r.stats.candidates,
    };
  } finally {
    await scanClient.shutdown();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
}

/** The real scheduler app (apps/scheduler/src/main.ts) with a debug lifecycle day of 1 s and no rate limit. */
export class SchedulerProcess {
  private child?: ChildProcess;
  readonly url: string;

  constructor(
    private readonly root: string,
    private readonly env: Record<string, string>,
    private readonly port: number,
    private readonly logPath: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async start(readyTimeoutMs = 180_000): Promise<void> {
    mkdirSync(dirname(this.logPath), { recursive: true });
    const log = createWriteStream(this.logPath);
    this.child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/scheduler/src/main.ts'], {
      cwd: this.root,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: resolve(this.root, 'tsconfig.base.json'),
        MANAGEMENT_PORT: String(this.port),
        MANAGEMENT_HOST: '127.0.0.1',
        BLOCK_STORE: 'cassandra',
        LIFECYCLE_DEBUG_DAY_SECONDS: String(DAY_SECONDS),
        SCHEDULER_RATE_PER_PARTITION: '0',
        LOG_LEVEL: 'warn',
        CASSANDRA_REQUEST_TIMEOUT_MS: '60000',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.pipe(log);
    this.child.stderr!.pipe(log);
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      this.assertRunning();
      if (
        await fetch(`${this.url}/health/ready`).then(
          (r) => r.status === 200,
          () => false,
        )
      )
        return;
      if (Date.now() > deadline) throw new Error(`scheduler not ready; see ${this.logPath}`);
      await sleep(500);
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private assertRunning(): void {
    if (this.child && (this.child.exitCode !== null || this.child.signalCode !== null))
      throw new Error(
        `scheduler exited (${this.child.exitCode ?? this.child.signalCode}); see ${this.logPath}`,
      );
  }

  /** applied / skipped / failed lifecycle actions so far. */
  async counts(): Promise<{ applied: number; skipped: number; failed: number }> {
    const [applied, skipped, failed] = await Promise.all([
      metricSum(this.url, 'ostore_lifecycle_actions_applied_total'),
      metricSum(this.url, 'ostore_lifecycle_actions_skipped_total'),
      metricSum(this.url, 'ostore_lifecycle_apply_failures_total'),
    ]);
    return { applied, skipped, failed };
  }

  /**
   * Polls /metrics until `expected` actions are applied or failed, or throws after `timeoutMs`
   * (skipped ones are not counted: a candidate delivered twice is applied once and then skipped).
   * Returns when the first and the last action were seen.
   */
  async waitHandled(
    expected: number,
    timeoutMs: number,
    progress?: (c: { applied: number; skipped: number; failed: number }) => void,
  ): Promise<{ applied: number; skipped: number; failed: number; firstAt: number; lastAt: number }> {
    const deadline = Date.now() + timeoutMs;
    let firstAt = 0;
    let lastPrint = Date.now();
    for (;;) {
      this.assertRunning();
      const c = await this.counts();
      const now = performance.now();
      if (c.applied > 0 && !firstAt) firstAt = now;
      if (c.applied + c.failed >= expected) return { ...c, firstAt, lastAt: now };
      if (Date.now() - lastPrint > 30_000) {
        lastPrint = Date.now();
        progress?.(c);
      }
      if (Date.now() > deadline)
        throw new Error(`only ${JSON.stringify(c)} of ${expected} candidates handled after ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
