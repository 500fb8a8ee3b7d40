import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { HealthRegistry } from '@ostore/shared/observability';
import { KafkaClient } from './kafka.client';
import { KafkaOptions } from './kafka.options';

@Injectable()
class KafkaLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(KafkaClient) private readonly client: KafkaClient,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register({ name: 'kafka', check: () => this.client.ping() });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** The app's Kafka client, its readiness check, and its close on shutdown. */
@Global()
@Module({})
export class KafkaModule {
  static forRoot(options: KafkaOptions): DynamicModule {
    return {
      module: KafkaModule,
      providers: [{ provide: KafkaClient, useFactory: () => new KafkaClient(options) }, KafkaLifecycle],
      exports: [KafkaClient],
    };
  }
}
