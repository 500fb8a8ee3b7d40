import { DynamicModule } from '@nestjs/common';
import { KafkaModule, UsageDeltaModule, UsageDeltaPublisher } from '@ostore/queue/data-access';
import { NoopUsageRecorder, S3CoreModule, USAGE_RECORDER } from '@ostore/s3/core';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { AppModule, queueOptions } from './app.module';
import { loadSchedulerConfig } from './config/scheduler.config';

describe(queueOptions.name, () => {
  it('consumes as group `scheduler` on the configured backend, heartbeats within a third of the session', () => {
    expect(queueOptions(loadSchedulerConfig({ QUEUE_SESSION_TIMEOUT_MS: '6000' }))).toEqual({
      backend: 'kafka',
      consumer: { group: 'scheduler', drainTimeoutMs: 10000, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 6000, heartbeatIntervalMs: 2000 },
    });
    expect(queueOptions(loadSchedulerConfig({ QUEUE_BACKEND: 'cassandra', OSTORE_CLUSTER: 'c1', KAFKA_TOPIC_PARTITIONS: '24' }))).toEqual({
      backend: 'cassandra',
      cassandra: { cluster: 'c1', partitions: 24 },
      consumer: { group: 'scheduler', drainTimeoutMs: 10000, leaseTtlSeconds: 30, heartbeatMs: 3000 },
    });
  });
});

describe('AppModule.register: usage deltas', () => {
  const deps = { logger: new JsonLogger('test', 'silent'), metrics: new MetricsRegistry('test', false) };
  const modules = (env: Record<string, string>) => {
    const root = AppModule.register(loadSchedulerConfig(env), deps);
    const core = root.imports!.find((m) => (m as DynamicModule).module === S3CoreModule) as DynamicModule;
    const recorder = core.providers!.find((p) => (p as { provide?: unknown }).provide === USAGE_RECORDER) as unknown as Record<string, unknown>;
    const has = (list: unknown[] | undefined, module: unknown) => (list ?? []).some((m) => (m as DynamicModule).module === module);
    return { kafka: has(root.imports, KafkaModule), usageModule: has(core.imports, UsageDeltaModule), recorder };
  };

  it('by default, lifecycle size changes go to the UsageDeltaPublisher over Kafka', () => {
    expect(modules({})).toMatchObject({ kafka: true, usageModule: true, recorder: { useExisting: UsageDeltaPublisher } });
  });

  it('with the Cassandra queue, Kafka is still there for the usage deltas', () => {
    expect(modules({ QUEUE_BACKEND: 'cassandra' })).toMatchObject({ kafka: true, usageModule: true });
  });

  it('USAGE_DELTAS=off: no publisher, and no Kafka when the queue does not need it', () => {
    const off = modules({ QUEUE_BACKEND: 'cassandra', USAGE_DELTAS: 'off' });
    expect(off).toMatchObject({ kafka: false, usageModule: false });
    expect(off.recorder.useValue).toBeInstanceOf(NoopUsageRecorder);
  });
});
