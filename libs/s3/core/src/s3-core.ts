import type { Clock } from '@ostore/shared/clock';
import { JsonLogger } from '@ostore/shared/observability';
import type { Metastore, NewestReadGroupsSink } from '@ostore/metastore/data-access';
import type { BlockManager } from '@ostore/storage/blocks';
import { BucketResolver } from './bucket-resolver';
import { CassandraBucketsService } from './buckets.service';
import { CassandraMultipartService } from './multipart.service';
import { CassandraObjectsService } from './objects.service';
import { defaultS3CoreSettings, S3CoreSettings } from './s3-core.options';
import { BucketQuotasService } from './quota/bucket-quotas.service';
import { QuotaGuard } from './quota/quota-guard';
import type { QuotaMetricsSink } from './quota/quota-metrics';
import type { ConvergenceMetricsSink } from './convergence-metrics';
import { NoopUsageRecorder, UsageRecorder } from './usage';
import { CassandraUsersService } from './users.service';
import { VersionClock } from './version-ids';
import { VersionStore } from './version-store';

/**
 * The four services sharing one version store (one VersionClock per process), and what they
 * were built over: lifecycle application (`@ostore/s3/core/lifecycle`) and tests build on these.
 */
export class S3Core {
  constructor(
    readonly buckets: CassandraBucketsService,
    readonly objects: CassandraObjectsService,
    readonly multipart: CassandraMultipartService,
    readonly users: CassandraUsersService,
    /** The write protocol of versions (lifecycle application commits and removes through it). */
    readonly store: VersionStore,
    readonly metastore: Metastore,
    readonly blocks: BlockManager,
    /** Bucket listing, usage and quota limits for the admin API. */
    readonly quotas: BucketQuotasService,
  ) {}

  /** Nest shutdown: sends the quota ledger updates still summed in this process (see QuotaGuard). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.store.quota.close();
  }
}

export interface S3CoreDeps {
  metastore: Metastore;
  blocks: BlockManager;
  clock: Clock;
  logger?: JsonLogger;
  usage?: UsageRecorder;
  /** Where the quota guard reports (default: nowhere). */
  quotaMetrics?: QuotaMetricsSink;
  /** Where the version store reports post-commit steps that failed (default: nowhere). */
  convergenceMetrics?: ConvergenceMetricsSink;
  /** Where GET and HEAD's grouped newest-row reads are reported (default: nowhere). */
  readGroupMetrics?: NewestReadGroupsSink;
  settings?: Partial<S3CoreSettings>;
}

/** Builds the services without Nest (tools, tests); S3CoreModule does the same from providers. */
export function createS3Core(deps: S3CoreDeps): S3Core {
  const settings = { ...defaultS3CoreSettings, ...deps.settings };
  const logger = deps.logger ?? new JsonLogger('s3-core', 'warn');
  const guard = new QuotaGuard(lazyLedger(deps.metastore), deps.clock, logger.forContext(QuotaGuard.name), deps.quotaMetrics, settings.quota);
  const store = new VersionStore(
    deps.metastore,
    deps.blocks,
    new VersionClock(deps.clock),
    deps.clock,
    settings,
    deps.usage ?? new NoopUsageRecorder(),
    logger.forContext(VersionStore.name),
    guard,
    deps.convergenceMetrics,
    deps.readGroupMetrics,
  );
  const resolver = new BucketResolver(deps.metastore, deps.clock, settings.bucketCacheTtlMs);
  const multipart = new CassandraMultipartService(resolver, store, deps.metastore, logger.forContext(CassandraMultipartService.name));
  return new S3Core(
    new CassandraBucketsService(deps.metastore, deps.clock, resolver, multipart),
    new CassandraObjectsService(resolver, store, logger.forContext(CassandraObjectsService.name)),
    multipart,
    new CassandraUsersService(deps.metastore, deps.clock),
    store,
    deps.metastore,
    deps.blocks,
    new BucketQuotasService(deps.metastore, resolver, guard, deps.clock, settings.bucketCacheTtlMs, deps.quotaMetrics),
  );
}

/** The metastore's quota ledger, reached only when a quota bucket is written (building the core touches nothing). */
function lazyLedger(ms: Metastore): Pick<Metastore['quotaLedger'], 'get' | 'add'> {
  return { get: (bucketId) => ms.quotaLedger.get(bucketId), add: (bucketId, bytes, objects) => ms.quotaLedger.add(bucketId, bytes, objects) };
}
