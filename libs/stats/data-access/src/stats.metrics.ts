import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/** Prometheus instruments of the stats write path. */
export class StatsMetrics {
  readonly consumed: Counter;
  readonly dedupHits: Counter;
  readonly expired: Counter;
  readonly invalid: Counter;
  readonly windowsRecomputed: Counter;
  readonly bucketBytes: Gauge<'bucket'>;
  readonly bucketObjects: Gauge<'bucket'>;

  constructor(registry: MetricsRegistry = new MetricsRegistry('stats', false)) {
    this.consumed = registry.counter(
      'ostore_stats_usage_events_consumed_total',
      'Usage deltas read from the usage topic',
    );
    this.dedupHits = registry.counter(
      'ostore_stats_usage_dedup_hits_total',
      'Usage deltas whose event id was already stored (a redelivery or a replay): counted once',
    );
    this.expired = registry.counter(
      'ostore_stats_usage_events_expired_total',
      'Usage deltas past their retention deadline when consumed: not stored',
    );
    this.invalid = registry.counter(
      'ostore_stats_usage_deltas_invalid_total',
      'Messages of the usage topic the UsageDelta contract refused: skipped',
    );
    this.windowsRecomputed = registry.counter(
      'ostore_stats_usage_windows_recomputed_total',
      '5-minute aggregates recomputed from their events',
    );
    this.bucketBytes = registry.gauge(
      'ostore_stats_bucket_bytes',
      'Bytes of a bucket as counted from usage events',
      ['bucket'],
    );
    this.bucketObjects = registry.gauge(
      'ostore_stats_bucket_objects',
      'Objects of a bucket as counted from usage events',
      ['bucket'],
    );
  }
}
