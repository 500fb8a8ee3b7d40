import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/** The queue's Prometheus instruments, shared by both implementations. */
export class QueueMetrics {
  /** Messages between the committed position and the partition's end, as last seen by its reader. */
  readonly lag: Gauge<'queue' | 'partition'>;
  readonly processed: Counter<'queue'>;
  /** Messages of a failed handler call from its first undone one on: each will be delivered again. */
  readonly failed: Counter<'queue'>;
  /** Cassandra queue only: nums given up after waiting `gapTimeoutMs` for them to appear. */
  readonly skipped: Counter<'queue'>;

  constructor(registry: MetricsRegistry = new MetricsRegistry('queue', false)) {
    this.lag = registry.gauge(
      'ostore_queue_consumer_lag_messages',
      'Messages not yet committed by the reader group, per queue partition',
      ['queue', 'partition'],
    );
    this.processed = registry.counter(
      'ostore_queue_messages_processed_total',
      'Queue messages fully processed by a handler',
      ['queue'],
    );
    this.failed = registry.counter(
      'ostore_queue_messages_failed_total',
      'Queue messages at or after the first undone one of a failed handler call (they are delivered again)',
      ['queue'],
    );
    this.skipped = registry.counter(
      'ostore_queue_messages_skipped_total',
      'Cassandra queue nums reserved by a producer but never written, skipped after the gap timeout',
      ['queue'],
    );
  }

  setLag(queue: string, partition: number, lag: number): void {
    this.lag.set({ queue, partition: String(partition) }, Math.max(0, lag));
  }

  /** Removes the lag series of partitions this reader gave up (a rebalance or a stop): another reader reports them. */
  forgetLag(queue: string, partitions: Iterable<number>): void {
    for (const partition of partitions) this.lag.remove({ queue, partition: String(partition) });
  }
}
