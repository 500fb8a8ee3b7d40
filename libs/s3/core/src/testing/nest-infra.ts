import { Global, Module } from '@nestjs/common';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { FakeClock } from '@ostore/shared/clock/testing';
import { JsonLogger } from '@ostore/shared/observability';

/**
 * What S3CoreModule needs from an app, for module specs that never touch Cassandra: a
 * CassandraClient that is never connected, a FakeClock and a silent logger (all global).
 */
@Global()
@Module({
  providers: [
    { provide: CassandraClient, useValue: {} },
    { provide: Clock, useValue: new FakeClock() },
    { provide: JsonLogger, useValue: new JsonLogger('test', 'silent') },
  ],
  exports: [CassandraClient, Clock, JsonLogger],
})
export class UnconnectedAppInfra {}
