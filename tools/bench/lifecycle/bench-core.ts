import { Metastore } from '@ostore/metastore/data-access';
import { createS3Core, S3Core } from '@ostore/s3/core';
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
  return { core: createS3Core({ metastore: new Metastore(client), blocks, clock, logger }), client };
}
