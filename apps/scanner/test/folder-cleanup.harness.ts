import type { Client } from 'cassandra-driver';
import { BucketCatalog, MetastoreBucketSource, createLocalScanClient, TokenSpan } from '@ostore/lifecycle/scan';
import { DeleteOutcome, EmptyFolderApplier } from '@ostore/folders/apply';
import { ParentBudget } from '@ostore/folders/cleanup';
import {
  FilterBuildJob,
  FolderCleanupCycle,
  FolderCleanupSettings,
  FolderScanJob,
  folderSources,
  leafSources,
  LocalRing,
  localRingOf,
  ScannerFolderMetrics,
  TickOutcome,
} from '@ostore/folders/scan';
import { BucketsRepository, FolderCleanupRepository, FolderFilterRepository, Metastore } from '@ostore/metastore/data-access';
import { FolderCandidate, QueueName } from '@ostore/queue/contracts';
import { QueueProducer } from '@ostore/queue/data-access';
import { createS3Core, S3Core } from '@ostore/s3/core';
import { CassandraClient, CassandraOptions } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { InMemoryBlockManager } from '@ostore/storage/blocks/testing';
import { cassandraOptions, freshKeyspace, stackEnv } from '@ostore/testing';
import { migrate } from './support';

export const silent = { info: () => undefined, warn: () => undefined };
export const INTERVAL_MS = 60_000;

/** What the scanners published, per queue, in order. */
export class CapturingProducer extends QueueProducer {
  readonly published: { queue: QueueName; partition: number; value: string }[] = [];

  async publish(queue: QueueName, partition: number, messages: readonly (Buffer | string)[]): Promise<void> {
    for (const m of messages) this.published.push({ queue, partition, value: m.toString() });
  }
  async partitionCount(): Promise<number> {
    return 3;
  }
  async close(): Promise<void> {}
  /** Takes every candidate published so far. */
  take(): FolderCandidate[] {
    return this.published.splice(0).map((m) => FolderCandidate.fromMessage(m.value));
  }
}

/** The S3 core with short-lived ghosts (so version folders of deleted keys empty within seconds). */
export function coreOf(db: CassandraClient, clock: FakeClock): S3Core {
  return createS3Core({
    metastore: new Metastore(db),
    blocks: new InMemoryBlockManager(64 * 1024),
    clock,
    logger: new JsonLogger('test', 'silent'),
    settings: { ghostTtlSeconds: 1 },
  });
}

/** One scanner's cleanup (filter build, folder scan, the cycle) over the real pinned session. */
export interface ScannerCleanup {
  cycle: FolderCleanupCycle;
  ring: LocalRing;
  metrics: MetricsRegistry;
  close(): Promise<void>;
}

export async function scannerCleanup(opts: {
  keyspace: string;
  db: CassandraClient;
  clock: FakeClock;
  producer: QueueProducer;
  source: string;
  settings?: Partial<FolderCleanupSettings>;
  maxPerParent?: number;
  /** The filter build's clock (default: `clock`). */
  buildClock?: Clock;
  /** Overrides the node's spans and the expected host count (two "scanners" over halves of one node). */
  ring?: (local: LocalRing) => LocalRing;
  /** A scanner beside one node of a multi-node ring: its session options and node (default: the test stack's one node). */
  node?: { options: CassandraOptions; address: string };
}): Promise<ScannerCleanup> {
  const { client } = await createLocalScanClient(opts.node?.options ?? cassandraOptions(opts.keyspace), opts.node?.address ?? stackEnv().cassandraHost);
  await client.connect();
  const addresses = [opts.node?.address ?? stackEnv().cassandraHost];
  const local = await localRingOf(client, opts.keyspace, addresses);
  const registry = new MetricsRegistry('scanner', false);
  const metrics = new ScannerFolderMetrics(registry);
  const repo = new FolderFilterRepository(opts.db);
  const build = new FilterBuildJob(leafSources(client), repo, { fetchSize: 100, chunkBytes: 4096, rowsPerSecond: 0 }, opts.buildClock ?? opts.clock, metrics, silent);
  const scan = new FolderScanJob(
    folderSources(client as Client),
    repo,
    new BucketCatalog(new MetastoreBucketSource(new BucketsRepository(opts.db)), undefined, () => opts.clock.monotonicMs()),
    opts.producer,
    { fetchSize: 100, hostIndex: 0, maxPerParent: opts.maxPerParent ?? 100, publishBatch: 50 },
    metrics,
    silent,
  );
  const settings: FolderCleanupSettings = {
    source: opts.source,
    intervalMs: INTERVAL_MS,
    maxAgeMs: 2 * INTERVAL_MS,
    fpr: 0.001,
    minDirectories: 1000,
    saturationFactor: 2,
    headroom: 1.5,
    ...opts.settings,
  };
  return {
    cycle: new FolderCleanupCycle(repo, build, scan, settings, opts.clock, metrics, silent),
    ring: opts.ring ? opts.ring(local) : local,
    metrics: registry,
    close: () => client.shutdown(),
  };
}

/** Ticks until the scanner has judged (or skipped) the current generation; every outcome on the way. */
export async function untilJudged(s: ScannerCleanup, maxTicks = 5): Promise<TickOutcome[]> {
  const out: TickOutcome[] = [];
  const never = new AbortController().signal;
  for (let i = 0; i < maxTicks; i++) {
    const o = await s.cycle.tick(s.ring, never);
    out.push(o);
    if (o.kind === 'scanned' || o.kind === 'skipped' || o.kind === 'idle') return out;
  }
  return out;
}

/** The scheduler's applier over the spec's session, on the real clock (folder rows carry real write timestamps). */
export function scheduler(db: CassandraClient, budget = new ParentBudget(1000, 1)): EmptyFolderApplier {
  return new EmptyFolderApplier(new FolderCleanupRepository(db), budget, { folderCacheTtlMs: 0, skewMs: 0 }, new SystemClock(), new FolderFilterRepository(db));
}

/** A fresh migrated keyspace. */
export async function migratedKeyspace(label: string): Promise<string> {
  const keyspace = freshKeyspace(label);
  await migrate(cassandraOptions(keyspace));
  return keyspace;
}

/** Applies candidates one by one; the outcome of each directory (`kind:parent+name`). */
export async function applyAll(sut: EmptyFolderApplier, candidates: FolderCandidate[]): Promise<Map<string, DeleteOutcome>> {
  const out = new Map<string, DeleteOutcome>();
  for (const c of candidates) out.set(`${c.kind}:${c.parent}${c.name}`, await sut.apply(c));
  return out;
}

/** The directories of a bucket's three folder tables (`kind:directory`), sorted. */
export async function folderRows(db: CassandraClient, bucketId: string): Promise<string[]> {
  const out: string[] = [];
  for (const kind of ['object', 'version', 'upload'] as const) {
    const rs = await db.execute(`SELECT bucket_id, parent, name FROM ${kind}_folders`);
    for (const r of rs.rows) if (String(r['bucket_id']) === bucketId) out.push(`${kind}:${r['parent']}${r['name']}`);
  }
  return out.sort();
}

/**
 * The `versions` and `null_versions` rows directly under these directories of a bucket, as
 * `table:parent+name` (for a failure's message: what keeps a version directory non-empty).
 */
export async function versionRowsUnder(db: CassandraClient, bucketId: string, directories: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const table of ['versions', 'null_versions']) {
    for (const parent of directories) {
      const rs = await db.execute(`SELECT name FROM ${table} WHERE bucket_id = ? AND parent = ?`, [bucketId, parent]);
      for (const r of rs.rows) out.push(`${table}:${parent}${r['name']}`);
    }
  }
  return out;
}

/** Halves of a span list, for two scanners over one node. */
export function halves(spans: readonly TokenSpan[]): [TokenSpan[], TokenSpan[]] {
  const out: [TokenSpan[], TokenSpan[]] = [[], []];
  for (const s of spans) {
    const mid = s.start + (s.end - s.start) / 2n;
    out[0].push({ start: s.start, end: mid });
    out[1].push({ start: mid, end: s.end });
  }
  return out;
}
