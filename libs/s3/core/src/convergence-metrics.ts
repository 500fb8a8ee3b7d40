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
}

/** Reports nothing (tools and tests without a registry). */
export class NoopConvergenceMetrics implements ConvergenceMetricsSink {
  failed(): void {}
}

export class ConvergenceMetrics implements ConvergenceMetricsSink {
  private readonly failures;

  constructor(registry: MetricsRegistry) {
    this.failures = registry.counter(
      'ostore_s3_convergence_failures_total',
      'Post-commit steps of writes that failed and were left to later writers and the lifecycle scan, by step (null_versions: stale null rows not removed; index_check: a late mutation not checked)',
      ['step'],
    );
    // every step's series exists from the start, so the first failure is an increase
    for (const step of ['null_versions', 'index_check'] as const) this.failures.inc({ step }, 0);
  }

  failed(step: ConvergenceStep): void {
    this.failures.inc({ step });
  }
}
