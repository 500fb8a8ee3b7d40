import { randomUUID } from 'crypto';
import { FakeClock } from '@ostore/shared/clock/testing';
import { MetricsRegistry } from '@ostore/shared/observability';
import { freshCluster, stackEnv, waitFor } from '@ostore/testing';
import { KafkaClient, KafkaUsageSink, UsageDeltaMetrics, UsageDeltaPublisher } from '../src';
import { UsageTopicReader } from '../src/testing';

/** The usage delta publisher over the real Kafka: topic, keys, partitions, order, and an unreachable broker. */
describe('usage deltas on a real Kafka', () => {
  const clients: KafkaClient[] = [];
  const readers: UsageTopicReader[] = [];
  const client = (cluster: string, brokers = stackEnv().kafkaBrokers) => {
    const c = new KafkaClient({ brokers, clientId: 'usage-spec', cluster, partitions: 3, replicationFactor: 1 });
    clients.push(c);
    return c;
  };
  afterAll(async () => {
    await Promise.all(readers.map((r) => r.close()));
    await Promise.all(clients.map((c) => c.close()));
  });

  const total = async (registry: MetricsRegistry, name: string) =>
    (await registry.registry.getSingleMetric(name)!.get()).values.reduce((s, v) => s + v.value, 0);

  it('publishes to s3-<cluster>-usage keyed by bucket id: one partition per bucket, in record order, every event id once', async () => {
    const cluster = freshCluster('usage');
    const kafka = client(cluster);
    const registry = new MetricsRegistry('test', false);
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const sut = new UsageDeltaPublisher(
      new KafkaUsageSink(kafka),
      clock,
      { source: 'scheduler', sourceHost: 'sched-0', batchMax: 16, lingerMs: 5 },
      new UsageDeltaMetrics(registry),
    );
    const buckets = Array.from({ length: 6 }, (_, i) => ({ bucketId: randomUUID(), bucket: `bucket-${i}` }));
    const COUNT = 300;
    for (let i = 0; i < COUNT; i++) {
      clock.advance(1);
      sut.record({ ...buckets[i % buckets.length], kind: i % 3 === 0 ? 'remove' : 'store', bytes: i % 3 === 0 ? -i : i, objects: i % 3 === 0 ? -1 : 1 });
    }
    await sut.close(10_000);
    expect(await total(registry, 'ostore_usage_deltas_published_total')).toBe(COUNT);

    const reader = await UsageTopicReader.start(kafka);
    readers.push(reader);
    const records = await reader.until(`${COUNT} deltas`, (r) => r.length >= COUNT);

    expect(records).toHaveLength(COUNT);
    expect(await kafka.partitionCount(`s3-${cluster}-usage`)).toBe(3);
    expect(new Set(records.map((r) => r.delta.eventId)).size).toBe(COUNT);
    for (const r of records) {
      expect(r.key).toBe(r.delta.bucketId);
      expect(r.delta).toMatchObject({ source: 'scheduler', sourceHost: 'sched-0' });
    }
    for (const [i, b] of buckets.entries()) {
      const mine = records.filter((r) => r.delta.bucketId === b.bucketId).sort((x, y) => x.offset - y.offset);
      expect(new Set(mine.map((r) => r.partition)).size).toBe(1);
      // partition order = record order: |bytes| and the Clock's times rise along the offsets
      const expected = Array.from({ length: COUNT }, (_, n) => n).filter((n) => n % buckets.length === i);
      expect(mine.map((r) => Math.abs(r.delta.bytes))).toEqual(expected);
      expect(mine.map((r) => r.delta.at.getTime())).toEqual(expected.map((n) => Date.UTC(2026, 5, 1) + n + 1));
    }
    // six buckets over three partitions: the key spreads them (all on one partition would mean no key)
    expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(1);
  });

  it('with no broker reachable: record() keeps returning, the buffer stays bounded, failures and drops are counted', async () => {
    // a loopback port nobody listens on: connections are refused at once
    const kafka = client(freshCluster('down'), ['127.0.0.1:1']);
    const registry = new MetricsRegistry('test', false);
    const sut = new UsageDeltaPublisher(
      new KafkaUsageSink(kafka),
      new FakeClock(),
      { source: 'gateway', sourceHost: 'gw-0', batchMax: 10, lingerMs: 0, bufferMax: 100, retryBackoff: { initialMs: 50, maxMs: 200 } },
      new UsageDeltaMetrics(registry),
    );
    const bucketId = randomUUID();
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) sut.record({ bucketId, bucket: 'photos', kind: 'store', bytes: 1 });
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;

    expect(sut.buffered).toBe(100);
    expect(await total(registry, 'ostore_usage_deltas_dropped_total')).toBe(900);
    await waitFor('a failed send', async () => ((await total(registry, 'ostore_usage_publish_errors_total')) >= 1 ? true : undefined), 30_000);
    expect(await total(registry, 'ostore_usage_deltas_published_total')).toBe(0);

    await sut.close(500);
    expect(await total(registry, 'ostore_usage_buffered_deltas')).toBe(0);
    expect(await total(registry, 'ostore_usage_deltas_dropped_total')).toBe(1000);
    // recorded for the report; 1000 records include encoding each delta once
    process.stdout.write(`usage-deltas.int-spec: 1000 record() calls with Kafka down took ${elapsedMs.toFixed(1)} ms\n`);
  });
});
