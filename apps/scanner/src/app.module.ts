import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from '@ostore/shared/clock';
import { CassandraModule } from '@ostore/shared/cassandra';
import { KafkaModule, QueueModule, QueueModuleOptions } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { ScannerConfig } from './config/scanner.config';
import { ScanModule } from './scan/scan.module';

/** The scanner only publishes: its consumer group is never joined. */
function queueOptions(config: ScannerConfig): QueueModuleOptions {
  return config.queueBackend === 'kafka'
    ? { backend: 'kafka', consumer: { group: 'scanner' } }
    : {
        backend: 'cassandra',
        cassandra: { cluster: config.cluster, partitions: config.kafka.partitions },
        consumer: { group: 'scanner' },
      };
}

@Module({})
export class AppModule {
  static register(
    config: ScannerConfig,
    deps: { logger: JsonLogger; metrics: MetricsRegistry },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        ...(config.queueBackend === 'kafka' ? [KafkaModule.forRoot(config.kafka)] : []),
        QueueModule.forRoot(queueOptions(config)),
        ScanModule.register(config),
      ],
    };
  }
}
