import { Counter, Gauge, Histogram } from 'prom-client';
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
  readonly localSize: Gauge;
  readonly localEntries: Gauge<'kind'>;
  readonly localOldestAge: Gauge;
  readonly cleanupDuration: Histogram;
  readonly cleanupDeleted: Counter<'kind'>;
  readonly currentUsageAnswers: Counter<'path'>;

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
    this.localSize = registry.gauge(
      'ostore_stats_local_store_size_bytes',
      "Bytes of the local store's files on disk (open windows and their dedup entries)",
    );
    this.localEntries = registry.gauge(
      'ostore_stats_local_store_entries',
      'Entries of the local store: kind=window (open 5-minute sums) or kind=event (event-id dedup entries)',
      ['kind'],
    );
    this.localOldestAge = registry.gauge(
      'ostore_stats_local_store_oldest_entry_age_seconds',
      'Age of the least recently written window of the local store (0 when empty)',
    );
    this.cleanupDuration = registry.histogram(
      'ostore_stats_local_cleanup_duration_seconds',
      'Duration of one cleanup run of the local store (retention deletes and compaction)',
      [],
      [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
    );
    this.cleanupDeleted = registry.counter(
      'ostore_stats_local_cleanup_deleted_total',
      'Local store entries deleted by cleanup past their retention: kind=window or kind=event',
      ['kind'],
    );
    this.currentUsageAnswers = registry.counter(
      'ostore_stats_current_usage_answers_total',
      "Current-usage answers by where the deltas since the snapshot's cut came from: path=memory (the in-memory aggregates of a usage partition this process reads), path=cassandra (usage_aggregates, or the running totals before any snapshot) or path=forwarded (asked once of the replica that reads the bucket's usage partition)",
      ['path'],
    );
    // both series exist from the start: a path never taken reads 0, not absent
    for (const path of ['memory', 'cassandra']) this.currentUsageAnswers.inc({ path }, 0);
  }
}
