import { tmpdir } from 'os';
import { join } from 'path';
import { envVar, parseEnv, z } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';
import { LOCAL_WRITE_BUFFER_BYTES } from '@ostore/stats/data-access';

const DAY_SECONDS = 86_400;

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9103),
  /** Raw usage events are kept this many days after they happened (TTL from that deadline). */
  STATS_EVENT_RETENTION_DAYS: envVar.int(35, 1, 3650),
  /** 5-minute aggregates are kept this many days after their window. */
  STATS_AGGREGATE_RETENTION_DAYS: envVar.int(400, 1, 7300),
  /** Most usage deltas handed to one batch (one write of events, one recomputation per touched window). */
  STATS_BATCH_SIZE: envVar.int(1000, 1, 100_000),
  /**
   * How long a fetch of the usage topic may wait for more deltas (up to STATS_FETCH_MIN_BYTES)
   * before a batch starts: under a trickle over many buckets each touched window's aggregate is then
   * written once for several deltas instead of once per delta. It adds at most this to how far
   * current usage lags behind the deltas.
   */
  STATS_FETCH_WAIT_MS: envVar.int(500, 1, 10_000),
  /** A fetch that has this many bytes of deltas answers at once (default ~1,000 deltas). */
  STATS_FETCH_MIN_BYTES: envVar.int(256 * 1024, 1, 64 * 1024 * 1024),
  /** Partitions of the usage topic whose batches run at the same time in one stats process. */
  STATS_PARTITION_CONCURRENCY: envVar.int(3, 1, 1024),
  /** How often the scanner hosts' completed snapshots are combined (a new pass shows within this). */
  STATS_SNAPSHOT_COMBINE_SECONDS: envVar.int(60, 1, 86_400),
  /**
   * Directory of the local store (open windows, event-id dedup); losing it costs a rebuild from
   * Cassandra, never a count. Default: `<tmpdir>/ostore-stats-<MANAGEMENT_PORT>` (one per process).
   */
  STATS_DATA_DIR: z.string().min(1).optional(),
  /** A local window not written for this long is deleted with its dedup entries. */
  STATS_LOCAL_RETENTION_SECONDS: envVar.int(3600, 1, 30 * 86_400),
  /**
   * LevelDB's write buffer for the local store (its memtable; up to twice this in memory while one is written out).
   * Smaller buffers make more table files to merge: at 4 MiB the merging grew to a quarter of the write path's CPU.
   */
  STATS_LOCAL_WRITE_BUFFER_BYTES: envVar.int(LOCAL_WRITE_BUFFER_BYTES, 1024 * 1024, 1024 * 1024 * 1024),
  /** The local store's cleanup runs this often (wall clock, random start offset per process). */
  STATS_LOCAL_CLEANUP_INTERVAL_SECONDS: envVar.int(300, 1, 86_400),
  /** Most keys one cleanup step deletes (bounds how long a step can hold up a batch). */
  STATS_LOCAL_CLEANUP_BATCH: envVar.int(1000, 1, 1_000_000),
  /**
   * The URL other replicas reach this one's management listener at (in Kubernetes the pod's DNS
   * name under the StatefulSet's headless Service). Announced to the usage consumer group, so that
   * a replica asked for a bucket of a partition read here forwards the request here. Without it
   * this replica is never forwarded to (it still forwards to replicas that announced one).
   */
  STATS_ADVERTISED_URL: z.string().url().optional(),
  /** How long a forwarded current-usage request may take before this replica answers it itself (0: never forward). */
  STATS_ROUTE_TIMEOUT_MS: envVar.int(250, 0, 10_000),
  /** How often the usage consumer group's assignment is re-read; an assignment older than 3 times this is not used. */
  STATS_ROUTE_REFRESH_MS: envVar.int(1000, 100, 60_000),
});

/** The stats app's configuration, validated once at boot. */
export interface StatsConfig extends BaseConfig {
  queue: {
    /** Group of the usage consumers: each partition of `s3-<cluster>-usage` is read by one stats process. */
    group: string;
    /** How long a stopping process lets running batches finish before handing the rest back. */
    drainTimeoutMs: number;
    batchSize: number;
    partitionConcurrency: number;
    /** A fetch waits up to `fetchWaitMs` for `fetchMinBytes` of deltas. */
    fetchWaitMs: number;
    fetchMinBytes: number;
  };
  retention: { eventsSeconds: number; aggregatesSeconds: number };
  snapshots: { combineIntervalMs: number };
  local: { dir: string; retentionMs: number; intervalMs: number; batchSize: number; writeBufferBytes: number };
  /** Current-usage requests for buckets of usage partitions another replica reads go to that replica. */
  routing: { advertisedUrl?: string; timeoutMs: number; refreshMs: number };
}

export function loadStatsConfig(env: Record<string, string | undefined> = process.env): StatsConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('stats', parsed, parsed.MANAGEMENT_PORT),
    queue: {
      group: 'stats',
      // as the scheduler: drain, abort, wait as long again, with 5 s left to commit and close
      drainTimeoutMs: Math.max(0, Math.floor((parsed.SHUTDOWN_TIMEOUT_MS - 5000) / 2)),
      batchSize: parsed.STATS_BATCH_SIZE,
      partitionConcurrency: parsed.STATS_PARTITION_CONCURRENCY,
      fetchWaitMs: parsed.STATS_FETCH_WAIT_MS,
      fetchMinBytes: parsed.STATS_FETCH_MIN_BYTES,
    },
    retention: {
      eventsSeconds: parsed.STATS_EVENT_RETENTION_DAYS * DAY_SECONDS,
      aggregatesSeconds: parsed.STATS_AGGREGATE_RETENTION_DAYS * DAY_SECONDS,
    },
    snapshots: { combineIntervalMs: parsed.STATS_SNAPSHOT_COMBINE_SECONDS * 1000 },
    local: {
      dir: parsed.STATS_DATA_DIR ?? join(tmpdir(), `ostore-stats-${parsed.MANAGEMENT_PORT}`),
      retentionMs: parsed.STATS_LOCAL_RETENTION_SECONDS * 1000,
      intervalMs: parsed.STATS_LOCAL_CLEANUP_INTERVAL_SECONDS * 1000,
      batchSize: parsed.STATS_LOCAL_CLEANUP_BATCH,
      writeBufferBytes: parsed.STATS_LOCAL_WRITE_BUFFER_BYTES,
    },
    routing: {
      advertisedUrl: parsed.STATS_ADVERTISED_URL?.replace(/\/+$/, ''),
      timeoutMs: parsed.STATS_ROUTE_TIMEOUT_MS,
      refreshMs: parsed.STATS_ROUTE_REFRESH_MS,
    },
  };
}
