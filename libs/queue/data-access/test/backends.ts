import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { MetricsRegistry } from '@ostore/shared/observability';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { cassandraOptions, freshCluster, freshKeyspace, stackEnv } from '@ostore/testing';
import { CassandraQueueConsumer, CassandraQueueProducer, CassandraQueueRepository } from '../src';
import { KafkaClient, KafkaQueueConsumer, KafkaQueueProducer, QueueMetrics } from '../src';
import { QueueBackendUnderTest } from '../src/testing';

/** One migrated keyspace for the whole suite; each test gets its own cluster name, hence its own queues. */
async function migratedKeyspace(): Promise<CassandraClient> {
  const keyspace = freshKeyspace('queue');
  const admin = createDriverClient(cassandraOptions(keyspace), false);
  try {
    await admin.connect();
    await new MigrationRunner(admin).migrate(migrations, {
      keyspace,
      replication: parseReplication('SimpleStrategy:1'),
    });
  } finally {
    await admin.shutdown();
  }
  const db = new CassandraClient(cassandraOptions(keyspace));
  await db.connect();
  return db;
}

/** The Cassandra-table queue on the local stack, with test timings (3 s leases, 50 ms polls). */
export async function cassandraBackend(): Promise<QueueBackendUnderTest> {
  const db = await migratedKeyspace();
  const repo = new CassandraQueueRepository(db);
  return {
    async cluster(partitions) {
      const settings = { cluster: freshCluster('queue'), partitions, messageTtlSeconds: 3600 };
      const metrics = new MetricsRegistry('queue-contract', false);
      return {
        producer: new CassandraQueueProducer(repo, settings),
        metrics,
        livenessMs: 3000,
        consumer: (group, overrides) =>
          new CassandraQueueConsumer(
            repo,
            settings,
            {
              group,
              leaseTtlSeconds: 3,
              heartbeatMs: 300,
              pollIntervalMs: 50,
              commitIntervalMs: 100,
              drainTimeoutMs: 1000,
              gapTimeoutMs: 5000,
              ...overrides,
            },
            new QueueMetrics(metrics),
          ),
      };
    },
    close: () => db.shutdown(),
  };
}

/** Kafka on the local stack, with test timings (the broker's minimum 6 s session, 100 ms commits). */
export async function kafkaBackend(): Promise<QueueBackendUnderTest> {
  const clients: KafkaClient[] = [];
  return {
    async cluster(partitions) {
      const client = new KafkaClient({
        brokers: stackEnv().kafkaBrokers,
        clientId: 'queue-contract',
        cluster: freshCluster('queue'),
        partitions,
        replicationFactor: 1,
      });
      clients.push(client);
      const metrics = new MetricsRegistry('queue-contract', false);
      return {
        producer: new KafkaQueueProducer(client),
        metrics,
        livenessMs: 6000,
        consumer: (group, settings) =>
          new KafkaQueueConsumer(
            client,
            {
              group,
              // the broker's minimum session; short rebalances and fetch waits keep group joins quick
              sessionTimeoutMs: 6000,
              rebalanceTimeoutMs: 6000,
              heartbeatIntervalMs: 300,
              maxWaitTimeMs: 100,
              commitIntervalMs: 100,
              drainTimeoutMs: 1000,
              ...settings,
            },
            new QueueMetrics(metrics),
          ),
      };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
