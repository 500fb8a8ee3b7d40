import { checkReadiness, HealthIndicator, ReadinessReport } from './health';
import { MetricsRegistry } from './metrics';

/**
 * Registers the readiness checks as metrics, run at each scrape: `ostore_dependency_up{dependency}`
 * (1 when the check passes within its deadline, else 0) and how long each took. A scrape then
 * shows why an app is not ready where no readiness probe runs (the scanner: a readiness probe
 * of the sidecar would gate its Cassandra pod's readiness). Under GATEWAY_WORKERS the primary
 * merges the workers' values: a dependency is up only if it is up in every worker (`min`), and
 * the slowest check counts (`max`).
 */
export function registerReadinessMetrics(metrics: MetricsRegistry, indicators: () => HealthIndicator[]): void {
  let current: Promise<ReadinessReport> | undefined;
  // the two gauges of one scrape share one run of the checks
  const report = () => (current ??= checkReadiness(indicators()).finally(() => setImmediate(() => (current = undefined))));
  metrics.gauge('ostore_dependency_up', 'Whether a readiness check passes (1) or fails (0): cassandra, kafka', ['dependency'], {
    aggregator: 'min',
    async collect() {
      const { checks } = await report();
      this.reset();
      for (const [dependency, c] of Object.entries(checks)) this.set({ dependency }, c.ok ? 1 : 0);
    },
  });
  metrics.gauge(
    'ostore_dependency_check_duration_seconds',
    'How long the readiness check of a dependency took at the last scrape (its deadline when it timed out)',
    ['dependency'],
    {
      aggregator: 'max',
      async collect() {
        const { checks } = await report();
        this.reset();
        for (const [dependency, c] of Object.entries(checks)) this.set({ dependency }, c.durationMs / 1000);
      },
    },
  );
}
