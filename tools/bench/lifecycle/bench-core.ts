import { randomBytes } from 'crypto';
import { Metastore } from '@ostore/metastore/data-access';
import { createS3Core, S3Core, S3CoreSettings } from '@ostore/s3/core';
import { CassandraClient, CassandraOptions } from '@ostore/shared/cassandra';
import { SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockReclaimer,
  BlockStateRepository,
  BlockStores,
  CassandraBlockManager,
  CassandraBlockStore,
  CompressedBlockStore,
  resolveBlockLifecycle,
} from '@ostore/storage/blocks';

/** The S3 core (the gateway's object service and metastore code) over its own session. */
export async function coreOver(
  cassandra: CassandraOptions,
  coreSettings: Partial<S3CoreSettings> = {},
): Promise<{ core: S3Core; client: CassandraClient }> {
  const client = new CassandraClient(cassandra);
  await client.connect();
  const clock = new SystemClock();
  const metrics = new MetricsRegistry('bench', false);
  const logger = new JsonLogger('bench', 'warn');
  const settings = resolveBlockLifecycle({});
  const stores = new BlockStores([
    new CassandraBlockStore(client, { tier: 'standard' }),
    new CompressedBlockStore(new CassandraBlockStore(client, { tier: 'cold-raw' }), { tier: 'cold' }),
  ]);
  const repo = new BlockStateRepository(client);
  const blocks = new CassandraBlockManager(
    repo,
    stores,
    new BlockReclaimer(repo, stores, settings, metrics, logger),
    settings,
    clock,
    metrics,
    logger,
  );
  return { core: createS3Core({ metastore: new Metastore(client), blocks, clock, logger, settings: coreSettings }), client };
}

/**
 * A fresh run of a lifecycle bench on the local stack: its id, its keyspace `bench_<name>_<run>`,
 * its Kafka cluster prefix `bench-<name>-<run>`, and the session options every bench uses.
 */
export function benchRun(
  stack: { cassandra: { host: string; port: number } },
  name: string,
  requestTimeoutMs = 30000,
): { run: string; keyspace: string; cluster: string; cassandra: CassandraOptions } {
  const run = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const keyspace = `bench_${name}_${run}`;
  return {
    run,
    keyspace,
    cluster: `bench-${name}-${run}`,
    cassandra: {
      contactPoints: [stack.cassandra.host],
      port: stack.cassandra.port,
      localDataCenter: 'datacenter1',
      keyspace,
      consistency: 'localQuorum',
      serialConsistency: 'localSerial',
      requestTimeoutMs,
      applicationName: 'ostore-bench',
    },
  };
}
