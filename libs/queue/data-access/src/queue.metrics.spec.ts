import { MetricsRegistry } from '@ostore/shared/observability';
import { waitFor } from '@ostore/testing';
import { QueueMetrics } from './queue.metrics';
import { inMemoryQueue } from './testing';

const lagLines = async (registry: MetricsRegistry) =>
  (await registry.render()).split('\n').filter((l) => l.startsWith('ostore_queue_consumer_lag_messages{'));

describe('QueueMetrics lag series', () => {
  it('forgetLag removes only the named partitions of that queue', async () => {
    const registry = new MetricsRegistry('queue-metrics-spec', false);
    const metrics = new QueueMetrics(registry);
    metrics.setLag('versions', 0, 5);
    metrics.setLag('versions', 1, 7);
    metrics.setLag('uploads', 1, 9);
    metrics.forgetLag('versions', [1, 2]);
    const lines = await lagLines(registry);
    expect(lines).toHaveLength(2);
    expect(lines.some((l) => l.includes('queue="versions"') && l.includes('partition="0"'))).toBe(true);
    expect(lines.some((l) => l.includes('queue="uploads"') && l.includes('partition="1"'))).toBe(true);
  });

  it('a reader that gives its partitions up (here: stops) leaves no lag series behind', async () => {
    const registry = new MetricsRegistry('queue-metrics-stop-spec', false);
    const queue = inMemoryQueue({ partitions: 3, metrics: registry });
    for (let p = 0; p < 3; p++) await queue.producer.publish('versions', p, ['a', 'b']);
    const sub = await queue.consumer('scheduler').subscribe('versions', async (batch) => {
      for (const m of batch.messages) batch.done(m);
    });
    await waitFor(
      'lag series of all three partitions',
      async () => ((await lagLines(registry)).length === 3 ? true : undefined),
      10_000,
    );
    await sub.stop();
    expect(await lagLines(registry)).toEqual([]);
  });
});
