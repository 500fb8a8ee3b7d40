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
import { KafkaModule, QueueModule, QueueModuleOptions, QueueTransport } from '@ostore/queue/data-access';
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
      { provide: LocalUsageState, useFactory: () => LocalUsageState.open(config.local.dir) },
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
