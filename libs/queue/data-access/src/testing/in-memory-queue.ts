import { MetricsRegistry } from '@ostore/shared/observability';
import { CassandraQueueConsumer } from '../cassandra/cassandra-queue.consumer';
import { CassandraQueueConsumerSettings } from '../cassandra/cassandra-queue.options';
import { CassandraQueueProducer } from '../cassandra/cassandra-queue.producer';
import { InMemoryQueueTables } from '../in-memory-queue-tables';
import { QueueConsumer, QueueProducer } from '../queue';
import { QueueMetrics } from '../queue.metrics';

export interface InMemoryQueueOptions {
  cluster?: string;
  /** Partitions of every queue (default 3). */
  partitions?: number;
  metrics?: MetricsRegistry;
  /** Consumer timings; the defaults are fast (1 s leases, 100 ms heartbeats, 10 ms polls). */
  consumer?: Partial<CassandraQueueConsumerSettings>;
}

/**
 * A complete queue in memory for unit tests of producers and consumers: the Cassandra queue's
 * producer and consumer over InMemoryQueueTables, so it has the same delivery, commit,
 * redelivery and one-reader-per-partition behaviour (it passes queueContractSuite).
 */
export function inMemoryQueue(options: InMemoryQueueOptions = {}): {
  tables: InMemoryQueueTables;
  producer: QueueProducer;
  consumer(group: string, settings?: Partial<CassandraQueueConsumerSettings>): QueueConsumer;
} {
  const tables = new InMemoryQueueTables();
  const settings = { cluster: options.cluster ?? 'test', partitions: options.partitions ?? 3 };
  const metrics = new QueueMetrics(options.metrics);
  return {
    tables,
    producer: new CassandraQueueProducer(tables, settings),
    consumer: (group, overrides) =>
      new CassandraQueueConsumer(
        tables,
        settings,
        {
          group,
          leaseTtlSeconds: 1,
          heartbeatMs: 100,
          pollIntervalMs: 10,
          commitIntervalMs: 20,
          drainTimeoutMs: 200,
          gapTimeoutMs: 1000,
          ...options.consumer,
          ...overrides,
        },
        metrics,
      ),
  };
}
