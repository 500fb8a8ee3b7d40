import { HealthIndicator } from './health';
import { MetricsRegistry } from './metrics';
import { registerReadinessMetrics } from './readiness.metrics';

const settle = () => new Promise((r) => setImmediate(r));

describe(registerReadinessMetrics.name, () => {
  const values = async (registry: MetricsRegistry, name: string) =>
    Object.fromEntries((await registry.registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels['dependency'], v.value]));

  it('exports each readiness check as up or down, as of the run the previous scrape started', async () => {
    const registry = new MetricsRegistry('scanner', false);
    let kafkaUp = true;
    const indicators: HealthIndicator[] = [
      { name: 'cassandra', check: async () => true },
      { name: 'kafka', check: async () => (kafkaUp ? true : Promise.reject(new Error('broker unreachable'))) },
    ];
    registerReadinessMetrics(registry, () => indicators);

    expect(await values(registry, 'ostore_dependency_up')).toEqual({}); // the first scrape starts the first run
    await settle();
    expect(await values(registry, 'ostore_dependency_up')).toEqual({ cassandra: 1, kafka: 1 });
    kafkaUp = false;
    await settle();
    await registry.render();
    await settle();
    const text = await registry.render();
    expect(text).toContain('ostore_dependency_up{dependency="kafka",app="scanner"} 0');
    expect(text).toContain('ostore_dependency_up{dependency="cassandra",app="scanner"} 1');
    expect(text).toMatch(/ostore_dependency_check_duration_seconds\{dependency="kafka",app="scanner"\} \d/);
  });

  it('never makes a scrape wait for a hung check, and runs one check at a time', async () => {
    const registry = new MetricsRegistry('gateway', false);
    let runs = 0;
    registerReadinessMetrics(registry, () => [{ name: 'cassandra', check: () => (runs++, new Promise<boolean>(() => undefined)) }]);
    for (let i = 0; i < 3; i++) expect(await values(registry, 'ostore_dependency_up')).toEqual({});
    expect(runs).toBe(1);
  });
});
