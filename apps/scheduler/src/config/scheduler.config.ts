import { envVar, parseEnv, z } from '@ostore/shared/config';
import { QUEUE_BACKENDS, QueueBackend, USAGE_DELTA_MODES, UsageConfig, usageConfigOf } from '@ostore/queue/data-access';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';
import type { DirectIoMode } from '@ostore/storage/blocks';
import { FOLDER_CLEANUP_ENV, FolderCleanupConfig, toFolderCleanupConfig } from './folder-cleanup.config';

const schema = baseEnvSchema
  .extend({
    MANAGEMENT_PORT: envVar.port(9102),
    /** The queue implementation (seed 000's feature toggle): Kafka topics or the Cassandra-table queue. */
    QUEUE_BACKEND: envVar.enumOf([...QUEUE_BACKENDS], 'kafka'),
    /** Candidates applied per second per source partition (0: unlimited), so one host is not hammered. */
    SCHEDULER_RATE_PER_PARTITION: z.coerce.number().min(0).max(100_000).default(500),
    /** Candidates of one batch applied at the same time (many LWTs in flight amortize well: tools/bench/lifecycle/APPLY-RESULTS.md). */
    SCHEDULER_CONCURRENCY: envVar.int(48, 1, 1024),
    /** Most candidates handed to one batch. */
    SCHEDULER_BATCH_SIZE: envVar.int(100, 1, 10_000),
    /** Partitions whose batches run at the same time in one scheduler (when it holds several). */
    SCHEDULER_PARTITION_CONCURRENCY: envVar.int(3, 1, 1024),
    /** Attempts at a candidate that fails with a retryable error before the batch is handed back. */
    SCHEDULER_RETRY_ATTEMPTS: envVar.int(5, 1, 100),
    /** Most rows of one object read to decide (NewerNoncurrentVersions counts within them). */
    SCHEDULER_MAX_VERSIONS: envVar.int(1000, 1, 100_000),
    /** Lifetime of a scheduler's LWT claim on a key (a crashed scheduler blocks the key this long at most). */
    SCHEDULER_CLAIM_TTL_SECONDS: envVar.int(30, 1, 3600),
    /** How long a dead scheduler's partitions wait before another takes them (Kafka session / Cassandra lease). */
    QUEUE_SESSION_TIMEOUT_MS: envVar.int(30_000, 6000, 300_000),
    /** A lifecycle "day" of this many seconds, ages in plain elapsed time (0: AWS's days). For tests. */
    LIFECYCLE_DEBUG_DAY_SECONDS: envVar.int(0, 0, 86_400),
    /** The block store: the same as the gateway's (the scheduler releases and copies its blocks). */
    BLOCK_STORE: z.enum(['fs', 'cassandra']).default('fs'),
    BLOCK_STORE_DIR: envVar.string('.stack/blocks'),
    /**
     * The 'fs' store's use of O_DIRECT: 'writes' (block writes bypass the page cache), 'all' (reads
     * too), or 'off'. A filesystem without O_DIRECT falls back to buffered I/O by itself.
     */
    BLOCK_FS_DIRECT_IO: z.enum(['writes', 'all', 'off']).default('writes'),
    BLOCK_SIZE_BYTES: envVar.int(8 * 1024 * 1024, 64 * 1024, 64 * 1024 * 1024),
    BLOCK_COLD_DIR: envVar.string('.stack/blocks-cold'),
    BLOCK_IN_FLIGHT_TTL_SECONDS: envVar.int(3600, 1, 7 * 86400),
    BLOCK_GC_GRACE_SECONDS: z.coerce.number().int().min(1).max(7 * 86400).optional(),
    /** Usage deltas (bytes stored, removed, copied per bucket) to the topic `s3-<cluster>-usage`, or nowhere. */
    USAGE_DELTAS: envVar.enumOf([...USAGE_DELTA_MODES], 'kafka'),
    /** Most usage deltas per Kafka send; a full batch is sent at once. */
    USAGE_BATCH_MAX: envVar.int(500, 1, 10_000),
    /** Longest a usage delta waits for its batch to fill. */
    USAGE_LINGER_MS: envVar.int(100, 0, 60_000),
    /** Usage deltas held in memory while Kafka fails; beyond this, new ones are dropped and counted. */
    USAGE_BUFFER_MAX: envVar.int(50_000, 1, 10_000_000),
    /** Directory of the usage delta spool (default: under the tmpdir): deltas past the buffer wait there, on disk. */
    USAGE_SPOOL_DIR: z.string().min(1).optional(),
    ...FOLDER_CLEANUP_ENV,
  });

/** The scheduler's configuration, validated once at boot. */
export interface SchedulerConfig extends BaseConfig {
  queue: {
    backend: QueueBackend;
    /** Group of the consumers: each partition is read by at most one scheduler. */
    group: string;
    sessionTimeoutMs: number;
    /** How long a stopping scheduler lets running batches finish before handing the rest back. */
    drainTimeoutMs: number;
  };
  scheduler: {
    ratePerPartition?: number;
    concurrency: number;
    batchSize: number;
    partitionConcurrency: number;
    retryAttempts: number;
    maxVersions: number;
    claimTtlSeconds: number;
    debugDaySeconds?: number;
  };
  blocks: {
    store: 'fs' | 'cassandra';
    dir: string;
    fsDirectIo: DirectIoMode;
    coldDir: string;
    blockSize: number;
    inFlightTtlSeconds: number;
    gcGraceMs: number;
  };
  /** The usage delta publisher (USAGE_*); `sourceHost` is this host's name (the pod name). */
  usage: UsageConfig;
  folders: FolderCleanupConfig;
}

export function loadSchedulerConfig(env: Record<string, string | undefined> = process.env): SchedulerConfig {
  const parsed = parseEnv(schema, env);
  const base = toBaseConfig('scheduler', parsed, parsed.MANAGEMENT_PORT);
  return {
    ...base,
    queue: {
      backend: parsed.QUEUE_BACKEND as QueueBackend,
      group: 'scheduler',
      sessionTimeoutMs: parsed.QUEUE_SESSION_TIMEOUT_MS,
      // The queue gives running batches this long, then aborts them and waits as long again
      // before abandoning a handler: both fit the shutdown deadline, with 5 s left to commit
      // the done prefix and close the clients.
      drainTimeoutMs: Math.max(0, Math.floor((parsed.SHUTDOWN_TIMEOUT_MS - 5000) / 2)),
    },
    scheduler: {
      ratePerPartition: parsed.SCHEDULER_RATE_PER_PARTITION > 0 ? parsed.SCHEDULER_RATE_PER_PARTITION : undefined,
      concurrency: parsed.SCHEDULER_CONCURRENCY,
      batchSize: parsed.SCHEDULER_BATCH_SIZE,
      partitionConcurrency: parsed.SCHEDULER_PARTITION_CONCURRENCY,
      retryAttempts: parsed.SCHEDULER_RETRY_ATTEMPTS,
      maxVersions: parsed.SCHEDULER_MAX_VERSIONS,
      claimTtlSeconds: parsed.SCHEDULER_CLAIM_TTL_SECONDS,
      debugDaySeconds: parsed.LIFECYCLE_DEBUG_DAY_SECONDS > 0 ? parsed.LIFECYCLE_DEBUG_DAY_SECONDS : undefined,
    },
    blocks: {
      store: parsed.BLOCK_STORE,
      dir: parsed.BLOCK_STORE_DIR,
      fsDirectIo: parsed.BLOCK_FS_DIRECT_IO,
      coldDir: parsed.BLOCK_COLD_DIR,
      blockSize: parsed.BLOCK_SIZE_BYTES,
      inFlightTtlSeconds: parsed.BLOCK_IN_FLIGHT_TTL_SECONDS,
      gcGraceMs: (parsed.BLOCK_GC_GRACE_SECONDS ?? parsed.BLOCK_IN_FLIGHT_TTL_SECONDS) * 1000,
    },
    usage: usageConfigOf(parsed),
    folders: toFolderCleanupConfig(parsed),
  };
}
