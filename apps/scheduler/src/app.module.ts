import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from '@ostore/shared/clock';
import { CassandraModule } from '@ostore/shared/cassandra';
import { KafkaModule } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { SchedulerConfig } from './config/scheduler.config';

@Module({})
export class AppModule {
  static register(
    config: SchedulerConfig,
    deps: { logger: JsonLogger; metrics: MetricsRegistry },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        KafkaModule.forRoot(config.kafka),
      ],
    };
  }
}
