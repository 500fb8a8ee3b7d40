import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ClockModule, Clock } from '@ostore/shared/clock';
import { CassandraClient, CassandraModule } from '@ostore/shared/cassandra';
import { KafkaModule, QueueModule, QueueModuleOptions, QueueTransport } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { StatsMetrics, UsageRecorder, usageStores, UsageStores } from '@ostore/stats/data-access';
import { StatsConfig } from './config/stats.config';
import { snapshotProviders } from './snapshots/snapshots.providers';
import { UsageDeltasController } from './usage/usage-deltas.controller';

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
        provide: USAGE_STORES,
        useFactory: (c: CassandraClient, clock: Clock, m: StatsMetrics) =>
          usageStores(c, clock, config.retention, m),
        inject: [CassandraClient, Clock, StatsMetrics],
      },
      { provide: UsageRecorder, useFactory: (s: UsageStores) => s.recorder, inject: [USAGE_STORES] },
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
      controllers: [UsageDeltasController],
      providers,
    };
  }
}
