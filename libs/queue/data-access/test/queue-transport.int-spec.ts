import { Controller, INestApplication, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { waitFor } from '@ostore/testing';
import { QueueBatch, QueueConsumer, QueueContext, QueueHandler, QueueTransport } from '../src';
import { QueueBackendUnderTest, QueueClusterUnderTest } from '../src/testing';
import { cassandraBackend, kafkaBackend } from './backends';

const DEADLINE_MS = 45_000;
const PROBE = Symbol('PROBE');

/** What the test does with each batch the controller receives. */
type Probe = (batch: QueueBatch, partition: number) => Promise<void>;

/** An ordinary Nest consumer: one `@QueueHandler` method on the queue transport. */
@Controller()
class VersionsController {
  constructor(@Inject(PROBE) private readonly probe: Probe) {}

  @QueueHandler('versions', { maxBatchSize: 10 })
  versions(@Payload() batch: QueueBatch, @Ctx() ctx: QueueContext): Promise<void> {
    return this.probe(batch, ctx.getPartition());
  }
}

/** A hybrid app as runApp builds one: the app's modules, with QueueTransport connected and started. */
async function hybridApp(consumer: QueueConsumer, probe: Probe): Promise<INestApplication> {
  @Module({
    controllers: [VersionsController],
    providers: [
      { provide: QueueConsumer, useValue: consumer },
      { provide: PROBE, useValue: probe },
      QueueTransport.provider(),
    ],
  })
  class ConsumerModule {}
  const app = await NestFactory.create(ConsumerModule, { logger: false, abortOnError: false });
  app.connectMicroservice({ strategy: app.get(QueueTransport) }, { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}

/** `promise`, or a rejection with the signal's reason once it aborts: how a handler hands work back. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });
}

describe.each([
  ['kafka', kafkaBackend],
  ['cassandra', cassandraBackend],
])('QueueTransport over %s', (_name, factory: () => Promise<QueueBackendUnderTest>) => {
  let backend: QueueBackendUnderTest;
  let cluster: QueueClusterUnderTest;
  const apps: INestApplication[] = [];
  const consumers: QueueConsumer[] = [];

  beforeAll(async () => {
    backend = await factory();
    cluster = await backend.cluster(1);
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(consumers.map((c) => c.close()));
    await cluster?.producer.close();
    await backend?.close();
  });

  const start = async (probe: Probe) => {
    const consumer = cluster.consumer('scheduler', { drainTimeoutMs: 300 });
    consumers.push(consumer);
    const app = await hybridApp(consumer, probe);
    apps.push(app);
    const sub = app.get(QueueTransport).subscription('versions')!;
    return { app, committed: async () => (await sub.committedOffsets()).get(0) };
  };

  it('commits only the contiguous prefix of out-of-order completions; after a restart the rest comes again', async () => {
    const values = Array.from({ length: 6 }, (_, i) => `m${i}`);
    await cluster.producer.publish('versions', 0, values);

    // first app: m0, m1, m3, m4 done out of order, m2 never; then it is stopped
    const firstSaw: string[] = [];
    const first = await start(async (batch) => {
      firstSaw.push(...batch.messages.map((m) => m.value.toString()));
      const [m0, m1, , m3, m4] = batch.messages;
      [m1, m3, m0, m4].forEach((m) => batch.done(m));
      await abortable(new Promise<void>(() => undefined), batch.signal);
    });
    const firstCommit = await waitFor('a first commit', first.committed, DEADLINE_MS);
    expect(firstSaw).toEqual(values);
    expect(firstCommit).toBe(2); // m3 and m4 are done too, but m2 is not: they must not count
    await first.app.close(); // a restart: the drain time passes, the handler hands m2.. back
    expect(await first.committed()).toBe(2);

    // second app, same group: m2 and everything after it again, nothing before
    const secondSaw: string[] = [];
    const second = await start(async (batch) => {
      secondSaw.push(...batch.messages.map((m) => m.value.toString()));
    });
    await waitFor(
      'everything committed',
      async () => ((await second.committed()) === 6 ? true : undefined),
      DEADLINE_MS,
    );
    expect(secondSaw).toEqual(['m2', 'm3', 'm4', 'm5']);
  });
});
