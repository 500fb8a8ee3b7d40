import type { Clock } from '@ostore/shared/clock';
import { JsonLogger } from '@ostore/shared/observability';
import type { Metastore } from '@ostore/metastore/data-access';
import type { BlockManager } from '@ostore/storage/blocks';
import { CassandraBucketsService } from './buckets.service';
import { CassandraMultipartService } from './multipart.service';
import { CassandraObjectsService } from './objects.service';
import { defaultS3CoreSettings, S3CoreSettings } from './s3-core.options';
import { NoopUsageRecorder, UsageRecorder } from './usage';
import { CassandraUsersService } from './users.service';
import { CassandraLifecycleStore } from './lifecycle/cassandra-lifecycle.store';
import { LifecycleApplier, LifecycleApplierSettings } from './lifecycle/lifecycle-applier';
import { VersionClock } from './version-ids';
import { VersionStore } from './version-store';

/** The four services sharing one version store (one VersionClock per process). */
export class S3Core {
  constructor(
    readonly buckets: CassandraBucketsService,
    readonly objects: CassandraObjectsService,
    readonly multipart: CassandraMultipartService,
    readonly users: CassandraUsersService,
    readonly store: VersionStore,
  ) {}
}

export interface S3CoreDeps {
  metastore: Metastore;
  blocks: BlockManager;
  clock: Clock;
  logger?: JsonLogger;
  usage?: UsageRecorder;
  settings?: Partial<S3CoreSettings>;
}

/** Builds the services without Nest (tools, tests); S3CoreModule does the same from providers. */
export function createS3Core(deps: S3CoreDeps): S3Core {
  const settings = { ...defaultS3CoreSettings, ...deps.settings };
  const logger = deps.logger ?? new JsonLogger('s3-core', 'warn');
  const store = new VersionStore(
    deps.metastore,
    deps.blocks,
    new VersionClock(deps.clock),
    deps.clock,
    settings,
    deps.usage ?? new NoopUsageRecorder(),
    logger.forContext(VersionStore.name),
  );
  const buckets = new CassandraBucketsService(deps.metastore, deps.clock, settings.bucketCacheTtlMs);
  const multipart = new CassandraMultipartService(buckets, store, logger.forContext(CassandraMultipartService.name));
  buckets.abortUploadsWith((b) => multipart.abortAll(b));
  return new S3Core(
    buckets,
    new CassandraObjectsService(buckets, store, logger.forContext(CassandraObjectsService.name)),
    multipart,
    new CassandraUsersService(deps.metastore, deps.clock),
    store,
  );
}

/**
 * The lifecycle applier of a core (the scheduler's; tools and tests build it the same way). Its
 * clock decides what is due, so tests move it; it should be the core's clock.
 */
export function createLifecycleApplier(
  core: S3Core,
  clock: Clock,
  settings: Partial<LifecycleApplierSettings> = {},
): LifecycleApplier {
  return new LifecycleApplier(new CassandraLifecycleStore(core.store, core.multipart), clock, settings);
}
