import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '@ostore/shared/observability';
import type { QueueName } from '@ostore/queue/contracts';
import { ScanHandler } from './scan-state';

/**
 * The scanner's Prometheus instruments. The first four names are a contract with deploy/
 * (dashboards, alerts): `ostore_scanner_versions_scanned_total`,
 * `ostore_scanner_candidates_published_total{queue}`, `ostore_scanner_scan_duration_seconds`,
 * `ostore_lifecycle_overdue_versions{bucket}`.
 */
export class ScanMetrics {
  readonly versionsScanned: Counter;
  readonly uploadsScanned: Counter;
  readonly blockRefsScanned: Counter;
  /** References of the most-referenced block of this node's primary ranges, as the last complete pass counted them. */
  readonly blockMaxReferences: Gauge;
  readonly candidatesPublished: Counter<'queue'>;
  /** Active seconds of one complete pass (summed over the segments of a resumed pass). */
  readonly scanDuration: Histogram<'table'>;
  /** Versions past their lifecycle deadline (plus grace) seen by the last completed pass, per bucket. */
  readonly overdueVersions: Gauge<'bucket'>;
  readonly passes: Counter<'table' | 'outcome'>;
  /** Share (0..1) of this node's primary token ranges the current pass has read. */
  readonly progress: Gauge<'table'>;
  readonly lastCompleted: Gauge<'table'>;
  readonly primaryRanges: Gauge;
  readonly readRetries: Counter<'table'>;
  readonly tombstoneSkips: Counter<'table' | 'kind'>;
  readonly throttledSeconds: Counter<'table'>;
  readonly rejectedCandidates: Counter<'queue'>;
  /** Keys whose scan found null rows below the newest null row, published for convergence. */
  readonly staleNullKeys: Counter;

  constructor(registry: MetricsRegistry = new MetricsRegistry('scanner', false)) {
    this.versionsScanned = registry.counter(
      'ostore_scanner_versions_scanned_total',
      'Rows of the versions table read by the local scan (versions, delete markers, hidden rows)',
    );
    this.uploadsScanned = registry.counter(
      'ostore_scanner_uploads_scanned_total',
      'Rows of the uploads table read by the local scan',
    );
    this.blockRefsScanned = registry.counter(
      'ostore_scanner_block_refs_scanned_total',
      'Rows of the block_refs table read by the local scan (one per reference, or one per block without any)',
    );
    this.blockMaxReferences = registry.gauge(
      'ostore_scanner_block_max_references',
      "References of the most-referenced block of this node's primary ranges, as the last complete pass over block_refs counted them",
    );
    this.candidatesPublished = registry.counter(
      'ostore_scanner_candidates_published_total',
      'Candidates published to the queues',
      ['queue'],
    );
    this.scanDuration = registry.histogram(
      'ostore_scanner_scan_duration_seconds',
      "Active duration of one complete pass over the node's primary token ranges",
      ['table'],
      [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800],
    );
    this.overdueVersions = registry.gauge(
      'ostore_lifecycle_overdue_versions',
      'Versions whose lifecycle action is overdue by more than the grace period, as seen by the last complete pass',
      ['bucket'],
    );
    this.passes = registry.counter('ostore_scanner_passes_total', 'Scan passes by outcome', ['table', 'outcome']);
    this.progress = registry.gauge(
      'ostore_scanner_progress_ratio',
      "Share of the node's primary token ranges read by the current pass",
      ['table'],
    );
    this.lastCompleted = registry.gauge(
      'ostore_scanner_last_completed_timestamp_seconds',
      'When the last complete pass ended (Unix time)',
      ['table'],
    );
    this.primaryRanges = registry.gauge(
      'ostore_scanner_primary_ranges',
      'Non-wrapping token spans this node is the primary replica of',
    );
    this.readRetries = registry.counter(
      'ostore_scanner_read_retries_total',
      'Pages read again after a failed read',
      ['table'],
    );
    this.tombstoneSkips = registry.counter(
      'ostore_scanner_tombstone_skips_total',
      'Parts of a pass left out because a read gave up on tombstones (kind: partition-rest or span)',
      ['table', 'kind'],
    );
    this.throttledSeconds = registry.counter(
      'ostore_scanner_throttled_seconds_total',
      'Seconds the scan waited to keep under its rows-per-second limit',
      ['table'],
    );
    this.rejectedCandidates = registry.counter(
      'ostore_scanner_candidates_rejected_total',
      'Candidates that failed their message contract (logged and skipped)',
      ['queue'],
    );
    this.staleNullKeys = registry.counter(
      'ostore_scanner_stale_null_keys_total',
      "Keys found with null rows below their newest null row (a writer's convergence failed or never ran), published for the scheduler to converge",
    );
  }

  rowsScanned(table: ScanHandler, n: number): void {
    (table === 'versions' ? this.versionsScanned : table === 'uploads' ? this.uploadsScanned : this.blockRefsScanned).inc(n);
  }

  published(queue: QueueName, n: number): void {
    this.candidatesPublished.inc({ queue }, n);
  }

  /** Replaces the overdue gauge with the counts of a complete pass. */
  setOverdue(byBucket: Readonly<Record<string, number>>): void {
    this.overdueVersions.reset();
    for (const [bucket, n] of Object.entries(byBucket)) this.overdueVersions.set({ bucket }, n);
  }
}
