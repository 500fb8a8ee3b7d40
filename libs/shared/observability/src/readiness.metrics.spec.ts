import { HealthIndicator } from './health';
import { MetricsRegistry } from './metrics';
import { registerReadinessMetrics } from './readiness.metrics';

describe(registerReadinessMetrics.name, () => {
  const values = async (registry: MetricsRegistry, name: string) =>
    Object.fromEntries((await registry.registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels['dependency'], v.value]));

  it('exports each readiness check as up or down at every scrape, with its duration', async () => {
    const registry = new MetricsRegistry('scanner', false);
    let kafkaUp = true;
    const indicators: HealthIndicator[] = [
      { name: 'cassandra', check: async () => true },
      { name: 'kafka', check: async () => (kafkaUp ? true : Promise.reject(new Error('broker unreachable'))) },
    ];
    let calls = 0;
    registerReadinessMetrics(registry, () => (calls++, indicators));

    expect(await values(registry, 'ostore_dependency_up')).toEqual({ cassandra: 1, kafka: 1 });
    kafkaUp = false;
    await new Promise((r) => setImmediate(r)); // the next scrape
    const text = await registry.render();
    expect(text).toContain('ostore_dependency_up{dependency="kafka",app="scanner"} 0');
    expect(text).toContain('ostore_dependency_up{dependency="cassandra",app="scanner"} 1');
    expect(text).toMatch(/ostore_dependency_check_duration_seconds\{dependency="kafka",app="scanner"\} \d/);
    expect(calls).toBe(2); // one run of the checks per scrape, shared by both gauges
  });

  it('drops a dependency no longer checked', async () => {
    const registry = new MetricsRegistry('gateway', false);
    const indicators: HealthIndicator[] = [
      { name: 'cassandra', check: async () => true },
      { name: 'kafka', check: async () => false },
    ];
    registerReadinessMetrics(registry, () => indicators);
    expect(await values(registry, 'ostore_dependency_up')).toEqual({ cassandra: 1, kafka: 0 });
    indicators.pop();
    await new Promise((r) => setImmediate(r));
    expect(await values(registry, 'ostore_dependency_up')).toEqual({ cassandra: 1 });
  });
});
