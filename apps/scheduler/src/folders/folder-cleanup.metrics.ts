import type { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/**
 * The scheduler's side of the empty-directory cleanup. `reason` of a skip: `not-empty` (the
 * directory received something since the filter was built, or still has child folders),
 * `raced` (it did between the deletion and the check after it: the row was written back),
 * `recently-written` (the row was written after the deletion's timestamp, which it wins over),
 * `parent-budget` (the parent had its deletions of this window), `gone` (no such row any more).
 */
export class FolderCleanupMetrics {
  readonly deleted: Counter<'kind'>;
  readonly skipped: Counter<'kind' | 'reason'>;
  readonly failures: Counter<'kind'>;
  readonly duration: Histogram<'kind'>;

  constructor(registry: MetricsRegistry) {
    this.deleted = registry.counter('ostore_folder_cleanup_directories_deleted_total', 'Empty directories whose folder row was deleted', ['kind']);
    this.skipped = registry.counter(
      'ostore_folder_cleanup_directories_skipped_total',
      'Empty-directory candidates left alone at apply time, by reason (not-empty: no longer empty at apply time)',
      ['kind', 'reason'],
    );
    this.failures = registry.counter('ostore_folder_cleanup_failures_total', 'Empty-directory candidates whose application failed', ['kind']);
    this.duration = registry.histogram('ostore_folder_cleanup_apply_duration_seconds', 'Time to re-check and delete one empty directory', ['kind']);
  }
}
