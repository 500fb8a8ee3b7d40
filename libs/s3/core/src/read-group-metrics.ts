import type { NewestReadGroupsSink } from '@ostore/metastore/data-access';
import type { MetricsRegistry } from '@ostore/shared/observability';

/** NewestReadGroups' reads as Prometheus metrics: how many GET/HEAD keys each Cassandra read served. */
export class ReadGroupMetrics implements NewestReadGroupsSink {
  private readonly keys;
  private readonly fallbacks;

  constructor(registry: MetricsRegistry) {
    this.keys = registry.histogram(
      'ostore_s3_newest_read_keys',
      'Keys of one directory whose newest row (GET, HEAD of unversioned buckets) one Cassandra read fetched: 1 for a read alone, more for a grouped read',
      [],
      [1, 2, 4, 8, 16, 32, 64],
    );
    this.fallbacks = registry.counter(
      'ostore_s3_newest_read_fallbacks_total',
      'Keys read alone because their grouped read reached its row limit before them (keys with many rows in an unversioned bucket)',
    );
  }

  read(keys: number): void {
    this.keys.observe(keys);
  }

  fallback(): void {
    this.fallbacks.inc();
  }
}
