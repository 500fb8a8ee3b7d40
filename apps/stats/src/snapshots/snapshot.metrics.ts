import { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/** Prometheus instruments of the snapshot combination. */
export class SnapshotMetrics {
  readonly ageSeconds: Gauge;
  readonly buckets: Gauge;
  readonly hosts: Gauge;
  readonly combinations: Counter<'outcome'>;

  constructor(registry: MetricsRegistry) {
    this.ageSeconds = registry.gauge(
      'ostore_stats_snapshot_age_seconds',
      'Seconds since the oldest host snapshot in the newest combined snapshot completed',
    );
    this.buckets = registry.gauge('ostore_stats_snapshot_buckets', 'Buckets in the newest combined snapshot');
    this.hosts = registry.gauge('ostore_stats_snapshot_host_snapshots', 'Host snapshots (host × table) in the newest combined snapshot');
    this.combinations = registry.counter(
      'ostore_stats_snapshot_combinations_total',
      'Attempts to combine the hosts’ snapshots: combined, unchanged (nothing new, or newer passes of the same hosts at the same cut: its first combination is kept), too_far_apart, none (no host snapshot yet)',
      ['outcome'],
    );
  }
}
