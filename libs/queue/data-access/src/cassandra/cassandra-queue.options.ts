import { QueueConsumerSettings } from '../queue';

/** Settings of the Cassandra-table queue shared by its producer and consumer. */
export interface CassandraQueueSettings {
  /** Metastore cluster name: queues are `s3-<cluster>-<queue>`, as the Kafka topics. */
  cluster: string;
  /** Partitions of queues created on demand (seed: 3 by default, up to 24). */
  partitions: number;
  /** Retention of a message: its TTL (`USING TTL`). Default 7 days. */
  messageTtlSeconds?: number;
}

export interface CassandraQueueConsumerSettings extends QueueConsumerSettings {
  /** A partition lease lasts this long without renewal (whole seconds). Default 15. */
  leaseTtlSeconds?: number;
  /** Lease renewals, membership and rebalancing run this often; keep it under a third of the lease. Default 3000. */
  heartbeatMs?: number;
  /** Wait between polls of a partition with nothing new. Default 500. */
  pollIntervalMs?: number;
  /** Rows per poll. Default 500. */
  fetchSize?: number;
  /**
   * How long a reader waits for a missing num (reserved by a producer, not visible yet) before
   * skipping it. Must exceed a producer's worst write latency. Default 60000.
   */
  gapTimeoutMs?: number;
}

export const DEFAULT_MESSAGE_TTL_SECONDS = 7 * 24 * 3600;
