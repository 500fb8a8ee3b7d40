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
    // only its options are read (the request timeout, for the core's index re-checks)
    { provide: CassandraClient, useValue: { options: { requestTimeoutMs: 12_000 } } },
    { provide: Clock, useValue: new FakeClock() },
    { provide: JsonLogger, useValue: new JsonLogger('test', 'silent') },
  ],
  exports: [CassandraClient, Clock, JsonLogger],
})
export class UnconnectedAppInfra {}
