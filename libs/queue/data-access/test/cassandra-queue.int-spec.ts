import { CassandraClient, createDriverClient } from '@ostore/shared/cassandra';
import { MetricsRegistry } from '@ostore/shared/observability';
import { MigrationRunner, migrations, parseReplication } from '@ostore/metastore/schema';
import { cassandraOptions, freshCluster, freshKeyspace } from '@ostore/testing';
import {
  CassandraQueueConsumer,
  CassandraQueueProducer,
  CassandraQueueRepository,
  QueueMetrics,
} from '../src';
import { queueContractSuite } from '../src/testing';

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

queueContractSuite('cassandra', async () => {
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
});
