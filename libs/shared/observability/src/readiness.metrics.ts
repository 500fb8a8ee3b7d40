import { checkReadiness, HealthIndicator, ReadinessReport } from './health';
import { MetricsRegistry } from './metrics';

/**
 * Registers the readiness checks as metrics: `ostore_dependency_up{dependency}` (1 when the check
 * passed within its deadline, else 0) and how long each took. A scrape then shows why an app is
 * not ready where no readiness probe runs (the scanner: a readiness probe of the sidecar would
 * gate its Cassandra pod's readiness). A scrape never waits for the checks: it shows the last
 * finished run and starts the next one (one at a time), so the values are one scrape old and a
 * hung dependency cannot make the scrape time out. Under GATEWAY_WORKERS the primary merges the
 * workers' values: a dependency is up only if it is up in every worker (`min`), and the slowest
 * check counts (`max`).
 */
export function registerReadinessMetrics(metrics: MetricsRegistry, indicators: () => HealthIndicator[]): void {
  let last: ReadinessReport | undefined;
  let running: Promise<void> | undefined;
  const latest = () => {
    running ??= checkReadiness(indicators())
      .then((report) => void (last = report))
      .finally(() => (running = undefined));
    return last?.checks ?? {};
  };
  metrics.gauge('ostore_dependency_up', 'Whether a readiness check passes (1) or fails (0): cassandra, kafka', ['dependency'], {
    aggregator: 'min',
    collect() {
      const checks = latest();
      this.reset();
      for (const [dependency, c] of Object.entries(checks)) this.set({ dependency }, c.ok ? 1 : 0);
    },
  });
  metrics.gauge(
    'ostore_dependency_check_duration_seconds',
    'How long the last finished readiness check of a dependency took (its deadline when it timed out)',
    ['dependency'],
    {
      aggregator: 'max',
      collect() {
        const checks = latest();
        this.reset();
        for (const [dependency, c] of Object.entries(checks)) this.set({ dependency }, c.durationMs / 1000);
      },
    },
  );
}
