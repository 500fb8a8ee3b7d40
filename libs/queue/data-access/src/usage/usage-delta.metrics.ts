import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/** Why a usage delta never reached the queue. */
export type UsageDropReason = 'buffer_full' | 'invalid' | 'shutdown' | 'closed' | 'spool_failed';

/** Prometheus instruments of the usage delta publisher (gateway and scheduler). */
export class UsageDeltaMetrics {
  readonly published: Counter;
  readonly dropped: Counter<'reason'>;
  /** Failed sends (each retried; a batch may fail several times). */
  readonly publishErrors: Counter;
  readonly buffered: Gauge;
  readonly spooled: Counter;
  readonly resent: Counter;
  /** Deltas on disk in the spool, waiting to be sent again. */
  readonly spoolPending: Gauge;

  constructor(registry: MetricsRegistry = new MetricsRegistry('usage', false)) {
    this.published = registry.counter('ostore_usage_deltas_published_total', 'Usage deltas written to the usage topic');
    this.dropped = registry.counter(
      'ostore_usage_deltas_dropped_total',
      'Usage deltas lost, never published: refused by the contract, the spool failed to write them (spool_failed), or, without a spool, buffer full while Kafka failed or left at the shutdown deadline',
      ['reason'],
    );
    this.publishErrors = registry.counter(
      'ostore_usage_publish_errors_total',
      'Failed sends of a batch of usage deltas to Kafka (the batch stays buffered and is retried)',
    );
    this.spooled = registry.counter(
      'ostore_usage_deltas_spooled_total',
      'Usage deltas written to the local spool (buffer full while Kafka failed, or left at the shutdown deadline), to be sent later',
    );
    this.resent = registry.counter(
      'ostore_usage_deltas_resent_total',
      'Usage deltas sent to the usage topic from the local spool',
    );
    this.spoolPending = registry.gauge(
      'ostore_usage_spool_deltas',
      'Usage deltas in the local spool (USAGE_SPOOL_DIR) waiting to be sent again; what is left here when a pod is deleted is lost',
    );
    this.buffered = registry.gauge('ostore_usage_buffered_deltas', 'Usage deltas in memory waiting to be published');
  }
}
