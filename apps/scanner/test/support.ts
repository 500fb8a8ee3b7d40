import { randomUUID } from 'crypto';
import { Readable } from 'stream';
import { Client } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { encodeStoredLifecycle, parseLifecycleXml } from '@ostore/lifecycle/rules';
import {
  createLocalScan,
  createLocalScanClient,
  KeyedRow,
  LocalScan,
  LocalScanSettings,
  localScanSpans,
  PageSource,
  ScanGroup,
  ScanMetrics,
  ScanTask,
  TokenSpan,
} from '@ostore/lifecycle/scan';
import { Metastore } from '@ostore/metastore/data-access';
import { migrateKeyspace } from '@ostore/metastore/schema/testing';
import { topicName, QueueName } from '@ostore/queue/contracts';
import { KafkaClient, KafkaQueueProducer } from '@ostore/queue/data-access';
import { createS3Core, Owner, S3Core } from '@ostore/s3/core';
import { CassandraClient, CassandraOptions } from '@ostore/shared/cassandra';
import { lifecycleTiming } from '@ostore/lifecycle/rules';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { InMemoryBlockManager } from '@ostore/storage/blocks/testing';

export const alice: Owner = { id: 'alice', displayName: 'Alice' };
export const DAY = 86_400_000;
export const silentLog = { info: () => undefined, warn: () => undefined };

/** Creates the keyspace with every migration. */
export const migrate = migrateKeyspace;

/** The S3 core over a keyspace with in-memory blocks and a fake clock (the objects' times). */
export async function s3(options: CassandraOptions, clock: FakeClock): Promise<{ core: S3Core; db: CassandraClient }> {
  const db = new CassandraClient(options);
  await db.connect();
  const core = createS3Core({ metastore: new Metastore(db), blocks: new InMemoryBlockManager(64 * 1024), clock, logger: new JsonLogger('test', 'silent') });
  return { core, db };
}

export function body(text: string): Readable {
  return Readable.from([Buffer.from(text)]);
}

export async function put(core: S3Core, bucket: string, key: string, text = 'x', tags?: Record<string, string>) {
  return core.objects.put({ bucket, key, owner: alice, body: body(text), meta: { userMeta: {}, tags } });
}

/** Stores a lifecycle configuration the way the gateway does (the parsed form, as JSON). */
export async function setLifecycle(core: S3Core, bucket: string, rules: string): Promise<void> {
  const config = parseLifecycleXml(`<LifecycleConfiguration>${rules}</LifecycleConfiguration>`);
  await core.buckets.setLifecycle(bucket, encodeStoredLifecycle(config));
}

export const rule = (id: string, prefix: string, actions: string) =>
  `<Rule><ID>${id}</ID><Filter><Prefix>${prefix}</Prefix></Filter><Status>Enabled</Status>${actions}</Rule>`;

/** A scanner of one node, wired like the app (real Cassandra, real Kafka). */
export interface ScannerUnderTest extends LocalScan {
  scanClient: Client;
  spans: TokenSpan[];
  hostId: string;
  registry: MetricsRegistry;
  metrics: ScanMetrics;
  kafka: KafkaClient;
  close(): Promise<void>;
}

export async function scannerOf(opts: {
  options: CassandraOptions;
  nodeAddress: string;
  db: CassandraClient;
  brokers: string[];
  cluster: string;
  clock: FakeClock;
  settings?: Partial<LocalScanSettings>;
  debugDaySeconds?: number;
  overdueGraceMs?: number;
}): Promise<ScannerUnderTest> {
  const { client: scanClient, policy } = await createLocalScanClient(opts.options, opts.nodeAddress);
  await scanClient.connect();
  const { node, spans } = await localScanSpans(scanClient, opts.options.keyspace, policy.addresses);
  const kafka = new KafkaClient({ brokers: opts.brokers, clientId: 'scanner-test', cluster: opts.cluster, partitions: 3, replicationFactor: 1 });
  const registry = new MetricsRegistry('scanner', false);
  const metrics = new ScanMetrics(registry);
  const scan = createLocalScan({
    scanClient,
    db: opts.db,
    producer: new KafkaQueueProducer(kafka),
    clock: opts.clock,
    metrics,
    log: silentLog,
    settings: {
      source: node.hostId,
      keyspace: opts.options.keyspace,
      hostIndex: 0,
      fetchSize: 500,
      rowsPerSecond: 0,
      checkpointMs: 1000,
      publishBatch: 200,
      ...opts.settings,
    },
    timing: lifecycleTiming(opts.debugDaySeconds),
    overdueGraceMs: opts.overdueGraceMs ?? DAY,
  });
  return {
    ...scan,
    scanClient,
    spans,
    hostId: node.hostId,
    registry,
    metrics,
    kafka,
    close: async () => {
      await kafka.close();
      await scanClient.shutdown();
    },
  };
}

export interface TopicMessage {
  partition: number;
  offset: string;
  value: string;
}

/** Everything in a queue's topic right now (a throwaway consumer group reads up to the high watermarks). */
export async function readTopic(brokers: string[], cluster: string, queue: QueueName): Promise<TopicMessage[]> {
  const topic = topicName(cluster, queue);
  const kafka = new Kafka({ clientId: 'scanner-test-reader', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  let ends: Map<number, bigint>;
  try {
    const exists = (await admin.listTopics()).includes(topic);
    if (!exists) return [];
    ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
  } finally {
    await admin.disconnect();
  }
  const total = [...ends.values()].reduce((a, b) => a + b, 0n);
  const out: TopicMessage[] = [];
  if (total === 0n) return out;
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${out.length} of ${total} messages of ${topic}`)), 60_000);
      consumer
        .run({
          eachMessage: async ({ partition, message }) => {
            out.push({ partition, offset: message.offset, value: message.value!.toString() });
            if (BigInt(out.length) >= total) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return out;
}

/** One metric sample from a registry's text output. */
export async function sample(registry: MetricsRegistry, name: string, labels = ''): Promise<number | undefined> {
  const line = (await registry.render())
    .split('\n')
    .find((l) => l.startsWith(name) && (labels === '' || l.includes(labels)) && !l.startsWith('#'));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The same task reading through another page source (to count or interrupt its reads). */
export function withSource<T extends KeyedRow, G extends ScanGroup>(task: ScanTask<T, G>, source: PageSource<T>): ScanTask<T, G> {
  return Object.assign(Object.create(task) as ScanTask<T, G>, { source });
}

/** A page source that reports every page it returns. */
export function tapped<T extends KeyedRow>(inner: PageSource<T>, onPage: (rows: T[]) => void): PageSource<T> {
  return {
    range: async (...args) => {
      const page = await inner.range(...args);
      onPage(page.rows);
      return page;
    },
    partition: async (...args) => {
      const page = await inner.partition(...args);
      onPage(page.rows);
      return page;
    },
  };
}
