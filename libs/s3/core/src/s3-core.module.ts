import { BeforeApplicationShutdown, DynamicModule, Inject, Injectable, InjectionToken, Module, ModuleMetadata, Provider } from '@nestjs/common';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { Metastore } from '@ostore/metastore/data-access';
import { BLOCK_MANAGER, BlockManager } from '@ostore/storage/blocks';
import { BUCKETS_SERVICE, MULTIPART_SERVICE, OBJECTS_SERVICE, USERS_SERVICE } from './api';
import { createS3Core, S3Core } from './s3-core';
import { QuotaMetrics } from './quota/quota-metrics';
import { ConvergenceMetrics } from './convergence-metrics';
import { ReadGroupMetrics } from './read-group-metrics';
import { S3CoreSettings } from './s3-core.options';
import { NoopUsageRecorder, USAGE_RECORDER, UsageRecorder } from './usage';

export interface S3CoreModuleOptions {
  /** Modules providing the BlockManager (e.g. `BlockStorageModule.forRoot(...)`). */
  imports?: ModuleMetadata['imports'];
  /** Token of the BlockManager (default BLOCK_MANAGER of @ostore/storage/blocks). */
  blockManager?: InjectionToken;
  /**
   * Where size changes go (default: nowhere): a UsageRecorder, or the token of one that a module
   * of `imports` provides (e.g. the queue's UsageDeltaPublisher).
   */
  usageRecorder?: UsageRecorder | InjectionToken;
  settings?: Partial<S3CoreSettings>;
}

function usageRecorderProvider(recorder: UsageRecorder | InjectionToken | undefined): Provider {
  if (recorder === undefined) return { provide: USAGE_RECORDER, useValue: new NoopUsageRecorder() };
  const isInstance = typeof recorder === 'object' && recorder !== null && typeof (recorder as UsageRecorder).record === 'function';
  return isInstance
    ? { provide: USAGE_RECORDER, useValue: recorder }
    : { provide: USAGE_RECORDER, useExisting: recorder as InjectionToken };
}

/** At shutdown, runs the index re-checks still pending at once (see IndexRechecks). */
@Injectable()
class IndexRechecksAtShutdown implements BeforeApplicationShutdown {
  constructor(@Inject(S3Core) private readonly core: S3Core) {}

  beforeApplicationShutdown(): Promise<void> {
    return this.core.store.indexRechecks.stop();
  }
}

/**
 * The S3 core services under the tokens of api.ts. Needs, from the app: CassandraClient
 * (CassandraModule), Clock (ClockModule), JsonLogger (ObservabilityModule) — all global — and a
 * BlockManager (from `imports`, under `blockManager`). Lifecycle application is a module of its
 * own (S3LifecycleModule of `@ostore/s3/core/lifecycle`), for the apps that apply rules.
 */
@Module({})
export class S3CoreModule {
  static forRoot(options: S3CoreModuleOptions = {}): DynamicModule {
    const providers: Provider[] = [
      usageRecorderProvider(options.usageRecorder),
      { provide: Metastore, useFactory: (c: CassandraClient) => new Metastore(c), inject: [CassandraClient] },
      {
        provide: S3Core,
        useFactory: (ms: Metastore, blocks: BlockManager, clock: Clock, logger: JsonLogger, usage: UsageRecorder, db: CassandraClient, registry?: MetricsRegistry) =>
          createS3Core({
            metastore: ms,
            blocks,
            clock,
            logger,
            usage,
            // a mutation is sent within one request timeout of its vts and lands within another
            settings: { indexFlightMs: 2 * db.options.requestTimeoutMs + 1000, ...options.settings },
            quotaMetrics: registry && new QuotaMetrics(registry),
            convergenceMetrics: registry && new ConvergenceMetrics(registry),
            readGroupMetrics: registry && new ReadGroupMetrics(registry),
          }),
        inject: [Metastore, options.blockManager ?? BLOCK_MANAGER, Clock, JsonLogger, USAGE_RECORDER, CassandraClient, { token: MetricsRegistry, optional: true }],
      },
      IndexRechecksAtShutdown,
      { provide: BUCKETS_SERVICE, useFactory: (core: S3Core) => core.buckets, inject: [S3Core] },
      { provide: OBJECTS_SERVICE, useFactory: (core: S3Core) => core.objects, inject: [S3Core] },
      { provide: MULTIPART_SERVICE, useFactory: (core: S3Core) => core.multipart, inject: [S3Core] },
      { provide: USERS_SERVICE, useFactory: (core: S3Core) => core.users, inject: [S3Core] },
    ];
    return {
      module: S3CoreModule,
      imports: options.imports ?? [],
      providers,
      exports: [BUCKETS_SERVICE, OBJECTS_SERVICE, MULTIPART_SERVICE, USERS_SERVICE, S3Core, Metastore],
    };
  }
}
