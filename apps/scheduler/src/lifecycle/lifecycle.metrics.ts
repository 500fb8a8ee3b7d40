import type { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';

/**
 * The scheduler's lifecycle instruments. Names are fixed: deploy/ dashboards and alerts use them.
 * `action` is AWS's element name (Expiration, NoncurrentVersionExpiration, Transition,
 * NoncurrentVersionTransition, ExpiredObjectDeleteMarker, AbortIncompleteMultipartUpload).
 * Consumer lag is the queue library's `ostore_queue_consumer_lag_messages`.
 */
export class LifecycleMetrics {
  readonly applied: Counter<'action'>;
  /** Applications that failed (not those rightly skipped after the re-check). */
  readonly failures: Counter<'action'>;
  readonly skipped: Counter<'action' | 'reason'>;
  /** Queue messages that are not candidates under their contract (logged, counted, passed over). */
  readonly badCandidates: Counter<'queue'>;
  readonly duration: Histogram<'action'>;

  constructor(registry: MetricsRegistry) {
    this.applied = registry.counter('ostore_lifecycle_actions_applied_total', 'Lifecycle actions applied with LWT', ['action']);
    this.failures = registry.counter(
      'ostore_lifecycle_apply_failures_total',
      'Lifecycle candidates whose application failed (not those skipped after the re-check)',
      ['action'],
    );
    this.skipped = registry.counter(
      'ostore_lifecycle_actions_skipped_total',
      'Lifecycle candidates left alone after the re-check, by reason',
      ['action', 'reason'],
    );
    this.badCandidates = registry.counter(
      'ostore_lifecycle_bad_candidates_total',
      'Queue messages that failed their contract and were passed over',
      ['queue'],
    );
    this.duration = registry.histogram('ostore_lifecycle_apply_duration_seconds', 'Time to re-check and apply one candidate action', [
      'action',
    ]);
  }
}
