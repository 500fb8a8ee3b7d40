import { randomUUID } from 'crypto';
import { mkdtemp, readdir, rm } from 'fs/promises';
import { tmpdir } from 'os';
import { join } from 'path';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { freshCluster, stackEnv, waitFor } from '@ostore/testing';
import { FileUsageDeltaSpool, KafkaClient, KafkaUsageSink, UsageDeltaMetrics, UsageDeltaPublisher } from '../src';
import { UsageTopicReader } from '../src/testing';

/**
 * No silent loss over the real Kafka: a publisher whose broker is unreachable spools what its
 * buffer and its shutdown deadline leave; the next run (a restarted gateway) on the same spool
 * directory and a reachable broker publishes every one of those deltas, each event id once.
 */
describe('the usage delta spool on a real Kafka', () => {
  let dir: string;
  const clients: KafkaClient[] = [];
  let reader: UsageTopicReader | undefined;
  const client = (cluster: string, brokers = stackEnv().kafkaBrokers) => {
    const c = new KafkaClient({ brokers, clientId: 'usage-spool-spec', cluster, partitions: 3, replicationFactor: 1 });
    clients.push(c);
    return c;
  };
  const total = async (registry: MetricsRegistry, name: string) =>
    (await registry.registry.getSingleMetric(name)!.get()).values.reduce((s, v) => s + v.value, 0);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ostore-usage-spool-int-'));
  });
  afterAll(async () => {
    await reader?.close();
    await Promise.all(clients.map((c) => c.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('spools while Kafka is unreachable and publishes it all from the spool on the next run', async () => {
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const settings = { source: 'gateway' as const, sourceHost: 'gw-0', batchMax: 10, lingerMs: 0, bufferMax: 100, retryBackoff: { initialMs: 50, maxMs: 200 } };
    const down = new MetricsRegistry('test', false);
    const first = new UsageDeltaPublisher(
      new KafkaUsageSink(client(freshCluster('spooldown'), ['127.0.0.1:1'])),
      clock,
      { ...settings, spool: new FileUsageDeltaSpool(dir, clock) },
      new UsageDeltaMetrics(down),
    );
    const bucketId = randomUUID();
    for (let i = 0; i < 1000; i++) first.record({ bucketId, bucket: 'photos', kind: 'store', bytes: i + 1, objects: 1 });
    expect(first.buffered).toBe(100);
    await first.close(500);
    expect(await total(down, 'ostore_usage_deltas_spooled_total')).toBe(1000);
    expect(await total(down, 'ostore_usage_deltas_dropped_total')).toBe(0);

    const kafka = client(freshCluster('spoolup'));
    const up = new MetricsRegistry('test', false);
    const second = new UsageDeltaPublisher(new KafkaUsageSink(kafka), clock, { ...settings, spool: new FileUsageDeltaSpool(dir, clock) }, new UsageDeltaMetrics(up));
    reader = await UsageTopicReader.start(kafka);
    await waitFor('the spool published', async () => ((await total(up, 'ostore_usage_deltas_resent_total')) === 1000 ? true : undefined), 60_000);
    await second.close(10_000);
    await waitFor('every delta on the topic', async () => (reader!.records.length >= 1000 ? true : undefined), 60_000);
    expect(new Set(reader.records.map((r) => r.delta.eventId)).size).toBe(1000);
    expect(reader.records.map((r) => r.delta.bytes).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect((await readdir(dir)).filter((f) => f.endsWith('.jsonl'))).toEqual([]);
  });
});
