import type { Counter, Gauge } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/**
 * The scanner's side of the empty-directory cleanup: what its folder scans judged and the health
 * of the filter generation they used. The scheduler's side (deleted, skipped at apply time) is in
 * the scheduler's FolderCleanupMetrics.
 */
export class ScannerFolderMetrics {
  readonly checked: Counter<'kind'>;
  readonly foundEmpty: Counter<'kind'>;
  readonly published: Counter<'kind'>;
  readonly keysAdded: Counter<'kind'>;
  readonly passes: Counter<'outcome'>;
  readonly fillRatio: Gauge;
  readonly estimatedFpr: Gauge;
  readonly generationAge: Gauge;
  readonly generation: Gauge;

  constructor(registry: MetricsRegistry) {
    this.checked = registry.counter('ostore_folder_cleanup_directories_checked_total', 'Folder rows judged against the combined filter', ['kind']);
    this.foundEmpty = registry.counter(
      'ostore_folder_cleanup_directories_found_empty_total',
      'Folder rows absent from the combined filter (directories with no key below them)',
      ['kind'],
    );
    this.published = registry.counter(
      'ostore_folder_cleanup_candidates_published_total',
      'Empty-directory candidates published (at most the per-parent bound per partition and pass)',
      ['kind'],
    );
    this.keysAdded = registry.counter('ostore_folder_filter_keys_read_total', 'Rows read into the filter of non-empty directories', ['kind']);
    this.passes = registry.counter(
      'ostore_folder_cleanup_passes_total',
      'Folder scans by outcome: completed, or skipped as missing, incomplete, stale or saturated',
      ['outcome'],
    );
    this.fillRatio = registry.gauge('ostore_folder_filter_fill_ratio', 'Share of the bits set in the combined filter of the last generation used');
    this.estimatedFpr = registry.gauge(
      'ostore_folder_filter_estimated_false_positive_ratio',
      'False-positive rate the combined filter answers with (fill ratio ^ hashes)',
    );
    this.generationAge = registry.gauge('ostore_folder_filter_generation_age_seconds', 'Seconds since the newest filter generation was opened');
    this.generation = registry.gauge('ostore_folder_filter_generation', 'Number of the newest filter generation');
  }
}
