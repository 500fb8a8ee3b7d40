import type { MetricsRegistry } from '@ostore/shared/observability';

/**
 * The steps a write runs after its mutation landed, whose failure the writer only logs and leaves
 * to later writers and to the lifecycle scan: the null-version cleanup (VersionStore.convergeNulls:
 * stale null rows of an unversioned key) and the index check of a mutation sent late.
 */
export type ConvergenceStep = 'null_versions' | 'index_check';

/** What the version store reports about those steps; `ConvergenceMetrics` makes it Prometheus metrics. */
export interface ConvergenceMetricsSink {
  failed(step: ConvergenceStep): void;
  /** A null version's writer left the key's null rows to the scan (S3CoreSettings.nullConvergence 'scan'). */
  deferred(): void;
}

/** Reports nothing (tools and tests without a registry). */
export class NoopConvergenceMetrics implements ConvergenceMetricsSink {
  failed(): void {}
  deferred(): void {}
}

export class ConvergenceMetrics implements ConvergenceMetricsSink {
  private readonly failures;
  private readonly deferrals;

  constructor(registry: MetricsRegistry) {
    this.failures = registry.counter(
      'ostore_s3_convergence_failures_total',
      'Post-commit steps of writes that failed and were left to later writers and the lifecycle scan, by step (null_versions: stale null rows not removed; index_check: a late mutation not checked)',
      ['step'],
    );
    // every step's series exists from the start, so the first failure is an increase
    for (const step of ['null_versions', 'index_check'] as const) this.failures.inc({ step }, 0);
    this.deferrals = registry.counter(
      'ostore_s3_null_convergence_deferred_total',
      'Null versions written without reading the null versions they replace, if any, which the lifecycle scan then removes (S3_NULL_CONVERGENCE=scan)',
    );
  }

  failed(step: ConvergenceStep): void {
    this.failures.inc({ step });
  }

  deferred(): void {
    this.deferrals.inc();
  }
}
