import { Metastore } from '@ostore/metastore/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock, SystemClock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import {
  BlockReclaimer,
  BlockStateRepository,
  BlockStore,
  BlockStores,
  CassandraBlockManager,
  CassandraBlockStore,
  CompressedBlockStore,
  resolveBlockLifecycle,
} from '@ostore/storage/blocks';
import { cassandraOptions } from '@ostore/testing';
import type { UsageEvent } from '../usage';
import type { ConvergenceStep } from '../convergence-metrics';
import { createS3Core, S3Core } from '../s3-core';
import type { S3CoreSettings } from '../s3-core.options';

export interface CoreFixtureOptions<C extends Clock> {
  /** The core's clock (default the system clock). */
  clock?: C;
  settings?: Partial<S3CoreSettings>;
  /** Add a compressed `cold` tier beside `standard` (lifecycle transitions). */
  coldTier?: boolean;
  /** Log level of the core (default silent). */
  logLevel?: string;
}

/** One "gateway" of a fixture: its own session, VersionClock and block manager. */
export interface CoreNode {
  core: S3Core;
  ms: Metastore;
  client: CassandraClient;
  blocks: CassandraBlockManager;
}

/** The S3 core over a migrated keyspace of the test stack, with the real Cassandra block store. */
export interface CoreFixture<C extends Clock = Clock> extends CoreNode {
  keyspace: string;
  clock: C;
  /** Every size change any node of the fixture reported. */
  usage: UsageEvent[];
  /** Every post-commit step any node of the fixture reported failed (ConvergenceMetricsSink). */
  convergenceFailures: ConvergenceStep[];
  /** How many null versions any node left to the scan (nullConvergence 'scan'). */
  convergenceDeferred: { count: number };
  /** GET/HEAD's newest-row reads of every node (NewestReadGroupsSink): keys per Cassandra read, and keys read again alone. */
  readGroups: { keys: number[]; fallbacks: number };
  /** Another node on the same keyspace, clock and usage list. */
  another(): Promise<CoreNode>;
  /** Shuts every session of the fixture down. */
  close(): Promise<void>;
}

/**
 * The medium-test factory of the S3 core (in the spirit of Immich's newMediumService): the real
 * services over a keyspace (see `migratedKeyspace` of `@ostore/metastore/schema/testing`), 64 KiB
 * blocks in Cassandra, usage events collected, and as many nodes ("gateways") as a spec needs.
 */
export async function newCoreFixture<C extends Clock = SystemClock>(
  keyspace: string,
  options: CoreFixtureOptions<C> = {},
): Promise<CoreFixture<C>> {
  const clock = (options.clock ?? new SystemClock()) as C;
  const sessions: CassandraClient[] = [];
  const usage: UsageEvent[] = [];
  const convergenceFailures: ConvergenceStep[] = [];
  const convergenceDeferred = { count: 0 };
  const readGroups = { keys: [] as number[], fallbacks: 0 };
  const node = async (): Promise<CoreNode> => {
    const client = new CassandraClient(cassandraOptions(keyspace));
    await client.connect();
    sessions.push(client);
    const lifecycle = resolveBlockLifecycle({ blockSize: 64 * 1024 });
    const metrics = new MetricsRegistry('test', false);
    const logger = new JsonLogger('test', options.logLevel ?? 'silent');
    const tiers: BlockStore[] = [new CassandraBlockStore(client, { tier: 'standard', chunkSize: 32 * 1024 })];
    if (options.coldTier)
      tiers.push(new CompressedBlockStore(new CassandraBlockStore(client, { tier: 'cold-raw', chunkSize: 32 * 1024 }), { tier: 'cold' }));
    const stores = new BlockStores(tiers);
    const repo = new BlockStateRepository(client);
    const reclaimer = new BlockReclaimer(repo, stores, lifecycle, metrics, logger);
    const blocks = new CassandraBlockManager(repo, stores, reclaimer, lifecycle, clock, metrics, logger);
    const ms = new Metastore(client);
    const core = createS3Core({
      metastore: ms,
      blocks,
      clock,
      logger,
      usage: { record: (e) => usage.push(e) },
      convergenceMetrics: { failed: (step) => convergenceFailures.push(step), deferred: () => convergenceDeferred.count++ },
      readGroupMetrics: { read: (keys) => readGroups.keys.push(keys), fallback: () => readGroups.fallbacks++ },
      settings: options.settings,
    });
    return { core, ms, client, blocks };
  };
  const first = await node();
  return {
    ...first,
    keyspace,
    clock,
    usage,
    convergenceFailures,
    convergenceDeferred,
    readGroups,
    another: node,
    close: async () => {
      await Promise.all(sessions.map((s) => s.shutdown()));
    },
  };
}
