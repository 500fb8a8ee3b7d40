import { VersionCandidate } from '@ostore/queue/contracts';
import {
  CassandraQueueConsumer,
  CassandraQueueProducer,
  CassandraQueueRepository,
  KafkaClient,
  KafkaQueueConsumer,
  KafkaQueueProducer,
  QueueConsumer,
  QueueMetrics,
  QueueProducer,
} from '@ostore/queue/data-access';
import { LifecycleApplier } from '@ostore/s3/core/lifecycle';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { freshCluster, stackEnv, waitFor } from '@ostore/testing';
import { AbortUploadCandidate } from '../src/lifecycle/abort-upload-candidate/abort-upload-candidate.usecase';
import { ApplyVersionCandidate } from '../src/lifecycle/apply-version-candidate/apply-version-candidate.usecase';
import { CandidateBatchRunner } from '../src/lifecycle/candidate-batch.runner';
import { LifecycleMetrics } from '../src/lifecycle/lifecycle.metrics';
import { UploadCandidate } from '@ostore/queue/contracts';
import { alice, bucketWith, DAY_MS, expireDays, history, put, stack, Stack } from './support';

type Backend = 'kafka' | 'cassandra';

interface Cluster {
  producer: QueueProducer;
  consumer(drainTimeoutMs?: number): QueueConsumer;
  close(): Promise<void>;
}

async function queueCluster(backend: Backend, s: Stack, partitions: number): Promise<Cluster> {
  const cluster = freshCluster('sched');
  const metrics = new QueueMetrics(new MetricsRegistry('queue', false));
  if (backend === 'kafka') {
    const client = new KafkaClient({ brokers: stackEnv().kafkaBrokers, clientId: 'scheduler-spec', cluster, partitions, replicationFactor: 1 });
    return {
      producer: new KafkaQueueProducer(client),
      consumer: (drainTimeoutMs = 2000) =>
        new KafkaQueueConsumer(
          client,
          {
            group: 'scheduler',
            sessionTimeoutMs: 6000,
            rebalanceTimeoutMs: 6000,
            heartbeatIntervalMs: 300,
            maxWaitTimeMs: 100,
            commitIntervalMs: 100,
            drainTimeoutMs,
          },
          metrics,
        ),
      close: () => client.close(),
    };
  }
  const repo = new CassandraQueueRepository(s.client);
  const settings = { cluster, partitions, messageTtlSeconds: 3600 };
  return {
    producer: new CassandraQueueProducer(repo, settings),
    consumer: (drainTimeoutMs = 2000) =>
      new CassandraQueueConsumer(
        repo,
        settings,
        { group: 'scheduler', leaseTtlSeconds: 3, heartbeatMs: 300, pollIntervalMs: 50, commitIntervalMs: 100, drainTimeoutMs, gapTimeoutMs: 5000 },
        metrics,
      ),
    close: async () => undefined,
  };
}

const count = async (m: MetricsRegistry, name: string, labels: Record<string, string> = {}) =>
  (await m.registry.getSingleMetric(name)!.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((sum, v) => sum + v.value, 0);

/**
 * The scheduler's consuming side (runner + use cases + applier), without Nest, reading real
 * queues — Kafka and the Cassandra-table queue alike — and applying to the real metastore.
 */
describe.each<Backend>(['kafka', 'cassandra'])('scheduler pipeline over the %s queue', (backend) => {
  let s: Stack;
  let cluster: Cluster;
  const consumers: QueueConsumer[] = [];
  const log = new JsonLogger('test', process.env.LOG_LEVEL ?? 'silent').forContext('test');

  beforeAll(async () => {
    s = await stack(`pipe${backend}`);
    cluster = await queueCluster(backend, s, 2);
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await cluster.producer.close();
    await cluster.close();
    await s.close();
  });

  /** A scheduler: one consumer instance subscribed to `versions` and `uploads`. */
  async function scheduler(applier: LifecycleApplier, registry: MetricsRegistry, opts: { concurrency?: number; drainTimeoutMs?: number } = {}) {
    const metrics = new LifecycleMetrics(registry);
    const runner = new CandidateBatchRunner(
      { concurrency: opts.concurrency ?? 8, retryAttempts: 3, retryBackoff: { initialMs: 50, maxMs: 200 } },
      metrics,
      log,
    );
    const versions = new ApplyVersionCandidate(applier, metrics, log);
    const uploads = new AbortUploadCandidate(applier, metrics, log);
    const consumer = cluster.consumer(opts.drainTimeoutMs);
    consumers.push(consumer);
    const options = { maxBatchSize: 10, concurrency: 2 };
    await consumer.subscribe(
      'versions',
      runner.handler({ queue: 'versions', contract: VersionCandidate, keyOf: (c) => versions.keyOf(c), execute: (c) => versions.execute(c) }),
      options,
    );
    await consumer.subscribe(
      'uploads',
      runner.handler({ queue: 'uploads', contract: UploadCandidate, keyOf: (c) => uploads.keyOf(c), execute: (c) => uploads.execute(c) }),
      options,
    );
    return consumer;
  }

  /** `n` objects due for Expiration, and one candidate message per object. */
  async function dueObjects(prefix: string, n: number) {
    const b = await bucketWith(s.core, `${prefix}-${backend}`, 'Enabled', expireDays(1));
    const keys = Array.from({ length: n }, (_, i) => `dir/${prefix}-${String(i).padStart(3, '0')}`);
    const versionIds: string[] = [];
    for (let i = 0; i < n; i += 10) versionIds.push(...(await Promise.all(keys.slice(i, i + 10).map((k) => put(s.core, b.name, k, k)))).map((r) => r.versionId));
    s.clock.advance(DAY_MS);
    const messages = keys.map((key, i) =>
      VersionCandidate.toMessage({
        bucketId: b.bucketId,
        bucket: b.name,
        key,
        parent: 'dir/',
        name: key.slice(4),
        versions: [{ versionId: versionIds[i], rules: [{ ruleId: 'expire', action: 'Expiration' }] }],
        scannedAt: s.clock.now(),
        sourceHost: 'cass-1',
      }),
    );
    const expired = async () => {
      let done = 0;
      for (const k of keys) if ((await history(s.core, b.name, k))[0]?.kind === 'M') done++;
      return done;
    };
    const expectExactlyOnce = async () => {
      for (const k of keys) expect((await history(s.core, b.name, k)).map((h) => h.kind)).toEqual(['M', 'STANDARD']);
    };
    return { b, keys, messages, expired, expectExactlyOnce };
  }

  it('applies every candidate; duplicates, out-of-order delivery and bad messages change nothing more', async () => {
    const registry = new MetricsRegistry('scheduler', false);
    const { messages, expired, expectExactlyOnce } = await dueObjects('dup', 30);
    // partition 0: the candidates, a bad message, then half of them again newest first
    await cluster.producer.publish('versions', 0, [...messages.slice(0, 20), 'garbage', ...messages.slice(0, 10).reverse()]);
    // partition 1: the rest, a candidate of a later contract version, and duplicates
    await cluster.producer.publish('versions', 1, [...messages.slice(20), JSON.stringify({ v: 99 }), ...messages.slice(20)]);

    await scheduler(await s.applier(), registry);

    await waitFor('every message handled', async () =>
      (await count(registry, 'ostore_lifecycle_actions_applied_total')) +
        (await count(registry, 'ostore_lifecycle_actions_skipped_total')) +
        (await count(registry, 'ostore_lifecycle_bad_candidates_total')) >=
      messages.length + 10 + 10 + 2
        ? true
        : undefined,
    60_000);
    expect(await expired()).toBe(30);
    await expectExactlyOnce();
    expect(await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'Expiration' })).toBe(30);
    expect(await count(registry, 'ostore_lifecycle_actions_skipped_total', { action: 'Expiration', reason: 'not-due' })).toBe(20);
    expect(await count(registry, 'ostore_lifecycle_bad_candidates_total', { queue: 'versions' })).toBe(2);
    expect(await count(registry, 'ostore_lifecycle_apply_failures_total')).toBe(0);
  });

  it('converges the stale null rows a candidate names in a bucket without rules (v2 message, no versions); a duplicate is skipped', async () => {
    const registry = new MetricsRegistry('scheduler', false);
    const name = `stale-${backend}`;
    await s.core.buckets.create({ name, owner: alice, location: '', acl: 'private' });
    const { bucketId } = await s.core.buckets.get(name);
    // the second PUT's null convergence fails (as on a Cassandra error): two null rows stay
    await put(s.core, name, 'dir/k', 'first');
    const versions = s.core.metastore.versions;
    const nullRows = versions.nullRows;
    versions.nullRows = async () => Promise.reject(new Error('read timeout (injected)'));
    try {
      s.clock.advance(5);
      await put(s.core, name, 'dir/k', 'second');
    } finally {
      versions.nullRows = nullRows;
    }
    expect(await versions.nullRows(bucketId, 'dir/', 'k')).toHaveLength(2);
    const message = VersionCandidate.toMessage({
      bucketId,
      bucket: name,
      key: 'dir/k',
      parent: 'dir/',
      name: 'k',
      versions: [],
      staleNulls: true,
      scannedAt: s.clock.now(),
      sourceHost: 'cass-1',
    });
    await cluster.producer.publish('versions', 0, [message, message]);

    await scheduler(await s.applier(), registry);

    await waitFor('both messages handled', async () =>
      (await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'ConvergeNulls' })) +
        (await count(registry, 'ostore_lifecycle_actions_skipped_total', { action: 'ConvergeNulls' })) >=
      2
        ? true
        : undefined,
    60_000);
    expect(await count(registry, 'ostore_lifecycle_actions_applied_total', { action: 'ConvergeNulls' })).toBe(1);
    expect(await count(registry, 'ostore_lifecycle_actions_skipped_total', { action: 'ConvergeNulls', reason: 'converged' })).toBe(1);
    expect(await versions.nullRows(bucketId, 'dir/', 'k')).toHaveLength(1);
    expect((await history(s.core, name, 'dir/k')).map((h) => h.versionId)).toEqual(['null']);
    expect(await count(registry, 'ostore_lifecycle_apply_failures_total')).toBe(0);
  });

  it('a scheduler stopped mid-batch: a new instance resumes, every candidate applied exactly once in effect', async () => {
    const { messages, expired, expectExactlyOnce } = await dueObjects('kill', 60);
    await cluster.producer.publish('versions', 0, messages.slice(0, 30));
    await cluster.producer.publish('versions', 1, messages.slice(30));

    // the first scheduler is slow, and is stopped with no time to drain
    const slow = await s.applier();
    const slowly: LifecycleApplier = Object.assign(Object.create(slow), {
      applyVersion: async (t: Parameters<LifecycleApplier['applyVersion']>[0]) => {
        await new Promise((r) => setTimeout(r, 300));
        return slow.applyVersion(t);
      },
    });
    const firstMetrics = new MetricsRegistry('first', false);
    const first = await scheduler(slowly, firstMetrics, { concurrency: 2, drainTimeoutMs: 0 });
    await waitFor(
      'a few candidates applied',
      async () => ((await count(firstMetrics, 'ostore_lifecycle_actions_applied_total')) >= 6 ? true : undefined),
      60_000,
      20,
    );
    await first.close();
    const atStop = await expired();
    expect(atStop).toBeLessThan(60);

    const registry = new MetricsRegistry('second', false);
    await scheduler(await s.applier(), registry);
    await waitFor('every object expired', async () => ((await expired()) === 60 ? true : undefined), 90_000);
    await expectExactlyOnce();
    // each expiration was applied by exactly one of the two; what the first had in flight when it
    // was stopped (abandoned, finishing late) came again to the second and was found done
    const applied = [await count(firstMetrics, 'ostore_lifecycle_actions_applied_total'), await count(registry, 'ostore_lifecycle_actions_applied_total')];
    expect(applied[0] + applied[1]).toBe(60);
    expect(applied[1]).toBeGreaterThan(0);
  });
});
