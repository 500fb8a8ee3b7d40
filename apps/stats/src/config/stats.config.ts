import { envVar, parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';

const DAY_SECONDS = 86_400;

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9103),
  /** Raw usage events are kept this many days after they happened (TTL from that deadline). */
  STATS_EVENT_RETENTION_DAYS: envVar.int(35, 1, 3650),
  /** 5-minute aggregates are kept this many days after their window. */
  STATS_AGGREGATE_RETENTION_DAYS: envVar.int(400, 1, 7300),
  /** Most usage deltas handed to one batch (one write of events, one recomputation per touched window). */
  STATS_BATCH_SIZE: envVar.int(1000, 1, 100_000),
  /** Partitions of the usage topic whose batches run at the same time in one stats process. */
  STATS_PARTITION_CONCURRENCY: envVar.int(3, 1, 1024),
  /** How often the scanner hosts' completed snapshots are combined (a new pass shows within this). */
  STATS_SNAPSHOT_COMBINE_SECONDS: envVar.int(60, 1, 86_400),
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
  };
  retention: { eventsSeconds: number; aggregatesSeconds: number };
  snapshots: { combineIntervalMs: number };
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
    },
    retention: {
      eventsSeconds: parsed.STATS_EVENT_RETENTION_DAYS * DAY_SECONDS,
      aggregatesSeconds: parsed.STATS_AGGREGATE_RETENTION_DAYS * DAY_SECONDS,
    },
    snapshots: { combineIntervalMs: parsed.STATS_SNAPSHOT_COMBINE_SECONDS * 1000 },
  };
}
