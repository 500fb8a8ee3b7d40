import {
  DynamicModule,
  Inject,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { ClockModule, Clock } from '@ostore/shared/clock';
import { CassandraClient, CassandraModule } from '@ostore/shared/cassandra';
import {
  KafkaClient,
  KafkaModule,
  QueueModule,
  QueueModuleOptions,
  QueueTransport,
} from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import {
  CurrentUsageReader,
  LocalStateCleanup,
  LocalUsageState,
  OwnedWindows,
  StatsMetrics,
  UsageRecorder,
  usageStores,
  UsageStores,
} from '@ostore/stats/data-access';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { StatsConfig } from './config/stats.config';
import { snapshotProviders } from './snapshots/snapshots.providers';
import { CurrentUsageController } from './usage/current-usage.controller';
import { CurrentUsageEndpoint } from './usage/current-usage.http';
import { CurrentUsageRouter } from './usage/current-usage.router';
import { UsageOwnerClient } from './usage/usage-owner.client';
import { UsageRoutes } from './usage/usage-routes';
import { UsageDeltasController } from './usage/usage-deltas.controller';
import { usageOwnership } from './usage/usage-ownership';

/** Injection token of the stats stores (UsageStores is an interface). */
const USAGE_STORES = Symbol('USAGE_STORES');

/** The usage topic lives on Kafka only (the gateways and schedulers publish there): group `stats`. */
export function queueOptions(config: StatsConfig): QueueModuleOptions {
  const sessionTimeoutMs = 30_000;
  return {
    backend: 'kafka',
    consumer: {
      group: config.queue.group,
      drainTimeoutMs: config.queue.drainTimeoutMs,
      sessionTimeoutMs,
      rebalanceTimeoutMs: sessionTimeoutMs,
      heartbeatIntervalMs: 3000,
      maxWaitTimeMs: config.queue.fetchWaitMs,
      minBytes: config.queue.fetchMinBytes,
      // the other replicas forward current-usage requests of this one's partitions there
      memberData: config.routing.advertisedUrl,
    },
  };
}

/** Runs the local store's cleanup while the app runs; closes the store last. */
class LocalStateLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(LocalStateCleanup) private readonly cleanup: LocalStateCleanup,
    @Inject(LocalUsageState) private readonly local: LocalUsageState,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.cleanup.report();
    this.cleanup.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.cleanup.stop();
    await this.local.close();
  }
}

@Module({})
export class AppModule {
  static register(
    config: StatsConfig,
    deps: { logger: JsonLogger; metrics: MetricsRegistry },
  ): DynamicModule {
    const providers: Provider[] = [
      {
        provide: StatsMetrics,
        useFactory: (m: MetricsRegistry) => new StatsMetrics(m),
        inject: [MetricsRegistry],
      },
      {
        provide: LocalUsageState,
        useFactory: () => LocalUsageState.open(config.local.dir, { writeBufferSize: config.local.writeBufferBytes }),
      },
      {
        provide: LocalStateCleanup,
        useFactory: (local: LocalUsageState, clock: Clock, m: StatsMetrics) =>
          new LocalStateCleanup(local, clock, config.local, m),
        inject: [LocalUsageState, Clock, StatsMetrics],
      },
      LocalStateLifecycle,
      // The aggregates of the buckets whose partitions this replica reads, answered from memory.
      {
        provide: OwnedWindows,
        useFactory: (t: QueueTransport) => new OwnedWindows(usageOwnership(t)),
        inject: [QueueTransport],
      },
      {
        provide: USAGE_STORES,
        useFactory: (
          c: CassandraClient,
          clock: Clock,
          m: StatsMetrics,
          local: LocalUsageState,
          owned: OwnedWindows,
        ) => usageStores(c, clock, config.retention, m, local, { owned }),
        inject: [CassandraClient, Clock, StatsMetrics, LocalUsageState, OwnedWindows],
      },
      { provide: UsageRecorder, useFactory: (s: UsageStores) => s.recorder, inject: [USAGE_STORES] },
      {
        provide: CurrentUsageReader,
        useFactory: (
          snapshots: SnapshotStore,
          s: UsageStores,
          clock: Clock,
          owned: OwnedWindows,
          m: StatsMetrics,
        ) => new CurrentUsageReader(snapshots, s, config.cassandra.keyspace, clock, undefined, owned, m),
        inject: [SnapshotStore, USAGE_STORES, Clock, OwnedWindows, StatsMetrics],
      },
      // Current usage of a bucket is answered by the replica that reads its usage partition.
      { provide: UsageOwnerClient, useFactory: () => new UsageOwnerClient() },
      {
        provide: CurrentUsageRouter,
        useFactory: (
          reader: CurrentUsageReader,
          kafka: KafkaClient,
          transport: QueueTransport,
          clock: Clock,
          m: StatsMetrics,
          logger: JsonLogger,
          owners: UsageOwnerClient,
        ) => {
          const log = logger.forContext(CurrentUsageRouter.name);
          const routes = new UsageRoutes(
            () => kafka.groupAssignment('usage', config.queue.group),
            clock,
            { refreshMs: config.routing.refreshMs, suspendMs: 5 * config.routing.refreshMs },
            log,
          );
          const ownership = usageOwnership(transport);
          return new CurrentUsageRouter(
            reader,
            routes,
            owners,
            (p) => ownership.owns(p),
            m,
            { selfUrl: config.routing.advertisedUrl, timeoutMs: config.routing.timeoutMs },
            log,
          );
        },
        inject: [
          CurrentUsageReader,
          KafkaClient,
          QueueTransport,
          Clock,
          StatsMetrics,
          JsonLogger,
          UsageOwnerClient,
        ],
      },
      // ... answered on the management listener ahead of Nest, its route map kept fresh (current-usage.http.ts).
      CurrentUsageEndpoint,
      // The usage topic's handler (UsageDeltasController) subscribes through it.
      QueueTransport.provider({
        defaults: { maxBatchSize: config.queue.batchSize, concurrency: config.queue.partitionConcurrency },
      }),
      ...snapshotProviders(config),
    ];
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        KafkaModule.forRoot(config.kafka),
        QueueModule.forRoot(queueOptions(config)),
      ],
      controllers: [UsageDeltasController, CurrentUsageController],
      providers,
    };
  }
}
