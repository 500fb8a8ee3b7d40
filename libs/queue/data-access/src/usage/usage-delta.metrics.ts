import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/** Why a usage delta never reached the queue. */
export type UsageDropReason = 'buffer_full' | 'invalid' | 'shutdown' | 'closed';

/** Prometheus instruments of the usage delta publisher (gateway and scheduler). */
export class UsageDeltaMetrics {
  readonly published: Counter;
  readonly dropped: Counter<'reason'>;
  /** Failed sends (each retried; a batch may fail several times). */
  readonly publishErrors: Counter;
  readonly buffered: Gauge;

  constructor(registry: MetricsRegistry = new MetricsRegistry('usage', false)) {
    this.published = registry.counter('ostore_usage_deltas_published_total', 'Usage deltas written to the usage topic');
    this.dropped = registry.counter(
      'ostore_usage_deltas_dropped_total',
      'Usage deltas never published: buffer full while Kafka failed, refused by the contract, or left at the shutdown deadline',
      ['reason'],
    );
    this.publishErrors = registry.counter(
      'ostore_usage_publish_errors_total',
      'Failed sends of a batch of usage deltas to Kafka (the batch stays buffered and is retried)',
    );
    this.buffered = registry.gauge('ostore_usage_buffered_deltas', 'Usage deltas in memory waiting to be published');
  }
}
