import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { HealthRegistry, JsonLogger } from '@ostore/shared/observability';
import { CassandraClient } from './cassandra.client';
import { CassandraOptions } from './cassandra.options';

export const CASSANDRA_OPTIONS = Symbol('CASSANDRA_OPTIONS');

@Injectable()
class CassandraLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(CassandraClient) private readonly client: CassandraClient,
    @Inject(HealthRegistry) private readonly health: HealthRegistry,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    this.health.register({ name: 'cassandra', check: () => this.client.ping() });
    await this.client.connect();
    this.logger.forContext(CassandraLifecycle.name).info('cassandra session open', {
      contactPoints: this.client.options.contactPoints,
      keyspace: this.client.keyspace,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.shutdown();
  }
}

/** One Cassandra session for the app, its readiness check, and its orderly close on shutdown. */
@Global()
@Module({})
export class CassandraModule {
  static forRoot(options: CassandraOptions): DynamicModule {
    return {
      module: CassandraModule,
      providers: [
        { provide: CASSANDRA_OPTIONS, useValue: options },
        { provide: CassandraClient, useFactory: () => new CassandraClient(options) },
        CassandraLifecycle,
      ],
      exports: [CassandraClient, CASSANDRA_OPTIONS],
    };
  }
}
