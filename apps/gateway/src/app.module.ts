import { DynamicModule, Module } from '@nestjs/common';
import { ClockModule } from '@ostore/shared/clock';
import { CassandraModule } from '@ostore/shared/cassandra';
import { KafkaModule } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { GatewayConfig } from './config/gateway.config';
import { S3Module } from './s3/s3.module';

@Module({})
export class AppModule {
  static register(
    config: GatewayConfig,
    deps: { logger: JsonLogger; metrics: MetricsRegistry },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        KafkaModule.forRoot(config.kafka),
        S3Module.register(config),
      ],
    };
  }
}
